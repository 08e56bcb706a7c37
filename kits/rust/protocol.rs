//! The bot protocol's plumbing for Rust bots: JSON lines on stdin/stdout
//! (docs/bot-protocol.md). A small JSON reader and writer, the standard library only.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

static NULL: Json = Json::Null;

impl Json {
    /// The field `key` of an object (Null when absent or not an object).
    pub fn get(&self, key: &str) -> &Json {
        match self {
            Json::Object(fields) => fields.get(key).unwrap_or(&NULL),
            _ => &NULL,
        }
    }
    pub fn as_str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            _ => "",
        }
    }
    pub fn as_i64(&self) -> i64 {
        match self {
            Json::Number(n) => *n as i64,
            _ => 0,
        }
    }
    pub fn items(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => &[],
        }
    }
}

struct Reader<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn space(&mut self) {
        while self.pos < self.s.len() && b" \t\r\n".contains(&self.s[self.pos]) {
            self.pos += 1;
        }
    }
    fn peek(&mut self) -> Result<u8, String> {
        self.space();
        self.s.get(self.pos).copied().ok_or_else(|| "unexpected end".to_string())
    }
    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.peek()? != c {
            return Err(format!("expected {:?} at {}", c as char, self.pos));
        }
        self.pos += 1;
        Ok(())
    }
    fn literal(&mut self, word: &str, value: Json) -> Result<Json, String> {
        if self.s[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(format!("unexpected character at {}", self.pos))
        }
    }
    fn value(&mut self) -> Result<Json, String> {
        match self.peek()? {
            b'{' => {
                self.pos += 1;
                let mut fields = BTreeMap::new();
                if self.peek()? == b'}' {
                    self.pos += 1;
                    return Ok(Json::Object(fields));
                }
                loop {
                    let key = self.string()?;
                    self.expect(b':')?;
                    fields.insert(key, self.value()?);
                    if self.peek()? == b',' {
                        self.pos += 1;
                        continue;
                    }
                    self.expect(b'}')?;
                    return Ok(Json::Object(fields));
                }
            }
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                if self.peek()? == b']' {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    if self.peek()? == b',' {
                        self.pos += 1;
                        continue;
                    }
                    self.expect(b']')?;
                    return Ok(Json::Array(items));
                }
            }
            b'"' => Ok(Json::Str(self.string()?)),
            b't' => self.literal("true", Json::Bool(true)),
            b'f' => self.literal("false", Json::Bool(false)),
            b'n' => self.literal("null", Json::Null),
            _ => {
                let start = self.pos;
                while self.pos < self.s.len() && b"+-0123456789.eE".contains(&self.s[self.pos]) {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("");
                text.parse().map(Json::Number).map_err(|_| format!("bad number at {}", start))
            }
        }
    }
    fn string(&mut self) -> Result<String, String> {
        self.expect(b'"')?;
        let mut out: Vec<u8> = Vec::new();
        while self.pos < self.s.len() && self.s[self.pos] != b'"' {
            let c = self.s[self.pos];
            self.pos += 1;
            if c != b'\\' {
                out.push(c);
                continue;
            }
            let e = *self.s.get(self.pos).ok_or("unexpected end")?;
            self.pos += 1;
            match e {
                b'n' => out.push(b'\n'),
                b't' => out.push(b'\t'),
                b'r' => out.push(b'\r'),
                b'b' => out.push(8),
                b'f' => out.push(12),
                b'u' => {
                    let hex = std::str::from_utf8(&self.s[self.pos..self.pos + 4]).map_err(|e| e.to_string())?;
                    let code = u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                    self.pos += 4;
                    let ch = char::from_u32(code).unwrap_or('\u{fffd}');
                    out.extend_from_slice(ch.to_string().as_bytes());
                }
                other => out.push(other),
            }
        }
        self.expect(b'"')?;
        String::from_utf8(out).map_err(|e| e.to_string())
    }
}

/// Parse one JSON document.
pub fn parse(text: &str) -> Result<Json, String> {
    let mut reader = Reader { s: text.as_bytes(), pos: 0 };
    let value = reader.value()?;
    reader.space();
    if reader.pos != text.len() {
        return Err(format!("trailing characters at {}", reader.pos));
    }
    Ok(value)
}

/// A JSON string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One legal action of a decision: its id and canonical text ("buy L1#3", "place C7" ...).
pub struct Legal {
    pub id: i64,
    pub text: String,
}

pub fn legal_actions(decide: &Json) -> Vec<Legal> {
    decide
        .get("observation")
        .get("legal")
        .items()
        .iter()
        .map(|item| Legal { id: item.get("id").as_i64(), text: item.get("text").as_str().to_string() })
        .collect()
}

/// The protocol's two ends: messages in, answers out (each flushed at once).
pub struct Connection {
    lines: io::Lines<io::StdinLock<'static>>,
    out: io::Stdout,
}

impl Connection {
    pub fn new() -> Self {
        Connection { lines: io::stdin().lock().lines(), out: io::stdout() }
    }
    /// The next message, or None at the end of input.
    pub fn receive(&mut self) -> Option<Json> {
        let line = self.lines.next()?.ok()?;
        Some(parse(&line).unwrap_or_else(|e| panic!("bad message: {}", e)))
    }
    fn send(&mut self, line: &str) {
        let mut out = self.out.lock();
        writeln!(out, "{}", line).and_then(|_| out.flush()).expect("stdout closed");
    }
    pub fn ready(&mut self, name: &str) {
        self.send(&format!("{{\"type\":\"ready\",\"name\":{}}}", quote(name)));
    }
    pub fn action(&mut self, id: i64, debug: &str) {
        self.send(&format!("{{\"type\":\"action\",\"id\":{},\"debug\":{}}}", id, quote(debug)));
    }
}
