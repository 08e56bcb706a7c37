//! A Rolling Heights bot in Rust: plays a random legal action, seeded, so the same game
//! gives the same moves. Replace `choose` with your own strategy.

mod protocol;

use protocol::{legal_actions, Connection, Legal};

/// xorshift64*: a small seeded generator (the standard library has none).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn choose(legal: &[Legal], rng: &mut Rng) -> usize {
    (rng.next() % legal.len() as u64) as usize
}

fn main() {
    let mut connection = Connection::new();
    let mut rng = Rng(7);
    while let Some(message) = connection.receive() {
        match message.get("type").as_str() {
            "hello" => {
                rng = Rng(7 + message.get("seat").as_i64() as u64);
                connection.ready("starter-rust");
            }
            "decide" => {
                let legal = legal_actions(&message);
                let action = &legal[choose(&legal, &mut rng)];
                connection.action(action.id, &format!("random: {}", action.text));
            }
            "end" => {
                eprintln!("game over");
                return;
            }
            _ => {}
        }
    }
}
