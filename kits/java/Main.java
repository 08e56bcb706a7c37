import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A Rolling Heights bot in Java: plays a random legal action, seeded, so the same game
 * gives the same moves. Replace {@code choose} with your own strategy.
 */
public final class Main {
    static int choose(List<Protocol.Legal> legal, Random random) {
        return random.nextInt(legal.size());
    }

    public static void main(String[] args) throws IOException {
        Protocol protocol = new Protocol();
        Random random = new Random(7);
        Map<String, Object> message;
        while ((message = protocol.receive()) != null) {
            switch ((String) message.get("type")) {
                case "hello" -> {
                    random = new Random(7 + ((Double) message.get("seat")).longValue());
                    protocol.ready("starter-java");
                }
                case "decide" -> {
                    List<Protocol.Legal> legal = Protocol.legalActions(message);
                    Protocol.Legal action = legal.get(choose(legal, random));
                    protocol.action(action.id(), "random: " + action.text());
                }
                case "end" -> {
                    System.err.println("game over");
                    return;
                }
                default -> {}
            }
        }
    }
}
