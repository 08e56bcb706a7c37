import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bot protocol's plumbing for Java bots: JSON lines on stdin/stdout
 * (docs/bot-protocol.md). A small JSON reader and writer, the Java SE library only.
 * Objects are {@code Map<String, Object>}, arrays {@code List<Object>}, numbers
 * {@code Double}, strings, booleans and {@code null}.
 */
public final class Protocol {
    /** One legal action of a decision: its id and canonical text ("buy L1#3", "place C7" ...). */
    public record Legal(long id, String text) {}

    private final BufferedReader in =
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    private final PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    /** The next message, or null at the end of input. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> receive() throws IOException {
        String line = in.readLine();
        return line == null ? null : (Map<String, Object>) new Reader(line).parse();
    }

    public void ready(String name) {
        send("{\"type\":\"ready\",\"name\":" + quote(name) + "}");
    }

    public void action(long id, String debug) {
        send("{\"type\":\"action\",\"id\":" + id + ",\"debug\":" + quote(debug) + "}");
    }

    private void send(String line) {
        out.print(line + "\n");
        out.flush();
    }

    @SuppressWarnings("unchecked")
    public static List<Legal> legalActions(Map<String, Object> decide) {
        Map<String, Object> observation = (Map<String, Object>) decide.get("observation");
        List<Legal> legal = new ArrayList<>();
        for (Object item : (List<Object>) observation.get("legal")) {
            Map<String, Object> action = (Map<String, Object>) item;
            legal.add(new Legal(((Double) action.get("id")).longValue(), (String) action.get("text")));
        }
        return legal;
    }

    public static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    /** A recursive-descent JSON reader over one line. */
    static final class Reader {
        private final String s;
        private int pos;

        Reader(String s) {
            this.s = s;
        }

        Object parse() {
            Object value = value();
            space();
            if (pos != s.length()) throw error("trailing characters");
            return value;
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException("bad JSON: " + what + " at " + pos);
        }

        private void space() {
            while (pos < s.length() && " \t\r\n".indexOf(s.charAt(pos)) >= 0) pos++;
        }

        private char peek() {
            space();
            if (pos >= s.length()) throw error("unexpected end");
            return s.charAt(pos);
        }

        private void expect(char c) {
            if (peek() != c) throw error("expected " + c);
            pos++;
        }

        private Object value() {
            char c = peek();
            if (c == '{') {
                pos++;
                Map<String, Object> fields = new LinkedHashMap<>();
                if (peek() == '}') {
                    pos++;
                    return fields;
                }
                while (true) {
                    String key = string();
                    expect(':');
                    fields.put(key, value());
                    if (peek() == ',') {
                        pos++;
                        continue;
                    }
                    expect('}');
                    return fields;
                }
            }
            if (c == '[') {
                pos++;
                List<Object> items = new ArrayList<>();
                if (peek() == ']') {
                    pos++;
                    return items;
                }
                while (true) {
                    items.add(value());
                    if (peek() == ',') {
                        pos++;
                        continue;
                    }
                    expect(']');
                    return items;
                }
            }
            if (c == '"') return string();
            if (s.startsWith("true", pos)) {
                pos += 4;
                return Boolean.TRUE;
            }
            if (s.startsWith("false", pos)) {
                pos += 5;
                return Boolean.FALSE;
            }
            if (s.startsWith("null", pos)) {
                pos += 4;
                return null;
            }
            int start = pos;
            while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) pos++;
            if (start == pos) throw error("unexpected character");
            return Double.parseDouble(s.substring(start, pos));
        }

        private String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (pos < s.length() && s.charAt(pos) != '"') {
                char c = s.charAt(pos++);
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = s.charAt(pos++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        b.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                        pos += 4;
                    }
                    default -> b.append(e);
                }
            }
            expect('"');
            return b.toString();
        }
    }
}
