// A Rolling Heights bot in C++: plays a random legal action, seeded, so the same game
// gives the same moves. Replace `choose` with your own strategy.
#include <cstdio>
#include <random>

#include "protocol.hpp"

using heights::Legal;

static size_t choose(const std::vector<Legal>& legal, std::mt19937_64& rng) {
    std::uniform_int_distribution<size_t> pick(0, legal.size() - 1);
    return pick(rng);
}

int main() {
    std::ios::sync_with_stdio(false);
    std::mt19937_64 rng(7);
    heights::Json message;
    while (heights::receive(message)) {
        const std::string& type = message["type"].text;
        if (type == "hello") {
            rng.seed(7 + static_cast<unsigned>(message["seat"].integer()));
            heights::send_ready("starter-cpp");
        } else if (type == "decide") {
            std::vector<Legal> legal = heights::legal_actions(message);
            const Legal& action = legal[choose(legal, rng)];
            heights::send_action(action.id, "random: " + action.text);
        } else if (type == "end") {
            std::fprintf(stderr, "game over\n");
            return 0;
        }
    }
    return 0;
}
