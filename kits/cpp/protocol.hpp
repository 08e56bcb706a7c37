// The bot protocol's plumbing for C++ bots: JSON lines on stdin/stdout
// (docs/bot-protocol.md). A small JSON reader and writer, the standard library only.
#pragma once

#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace heights {

// A JSON value: null, bool, number, string, array or object.
struct Json {
    enum class Kind { Null, Bool, Number, String, Array, Object } kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string text;
    std::vector<Json> items;
    std::map<std::string, Json> fields;

    const Json& operator[](const std::string& key) const {
        static const Json null_value;
        auto it = fields.find(key);
        return it == fields.end() ? null_value : it->second;
    }
    bool has(const std::string& key) const { return fields.count(key) > 0; }
    long long integer() const { return static_cast<long long>(number); }
};

class JsonReader {
  public:
    explicit JsonReader(const std::string& s) : s_(s) {}

    Json parse() {
        Json value = read_value();
        skip_space();
        if (pos_ != s_.size()) fail("trailing characters");
        return value;
    }

  private:
    const std::string& s_;
    size_t pos_ = 0;

    [[noreturn]] void fail(const char* what) const {
        throw std::runtime_error(std::string("bad JSON: ") + what + " at " + std::to_string(pos_));
    }
    void skip_space() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
    }
    char peek() { skip_space(); if (pos_ >= s_.size()) fail("unexpected end"); return s_[pos_]; }
    void expect(char c) { if (peek() != c) fail("unexpected character"); ++pos_; }
    bool literal(const char* word) {
        std::string w(word);
        if (s_.compare(pos_, w.size(), w) != 0) return false;
        pos_ += w.size();
        return true;
    }

    Json read_value() {
        Json v;
        char c = peek();
        if (c == '{') {
            v.kind = Json::Kind::Object;
            ++pos_;
            if (peek() == '}') { ++pos_; return v; }
            for (;;) {
                std::string key = read_string();
                expect(':');
                v.fields[key] = read_value();
                if (peek() == ',') { ++pos_; continue; }
                expect('}');
                return v;
            }
        }
        if (c == '[') {
            v.kind = Json::Kind::Array;
            ++pos_;
            if (peek() == ']') { ++pos_; return v; }
            for (;;) {
                v.items.push_back(read_value());
                if (peek() == ',') { ++pos_; continue; }
                expect(']');
                return v;
            }
        }
        if (c == '"') { v.kind = Json::Kind::String; v.text = read_string(); return v; }
        if (literal("true")) { v.kind = Json::Kind::Bool; v.boolean = true; return v; }
        if (literal("false")) { v.kind = Json::Kind::Bool; return v; }
        if (literal("null")) return v;
        size_t start = pos_;
        while (pos_ < s_.size() && std::string("+-0123456789.eE").find(s_[pos_]) != std::string::npos) ++pos_;
        if (start == pos_) fail("unexpected character");
        v.kind = Json::Kind::Number;
        v.number = std::stod(s_.substr(start, pos_ - start));
        return v;
    }

    std::string read_string() {
        expect('"');
        std::string out;
        while (pos_ < s_.size() && s_[pos_] != '"') {
            char c = s_[pos_++];
            if (c != '\\') { out += c; continue; }
            if (pos_ >= s_.size()) fail("unexpected end");
            char e = s_[pos_++];
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': {  // kept as UTF-8; surrogate pairs are not needed by the protocol
                    unsigned code = std::stoul(s_.substr(pos_, 4), nullptr, 16);
                    pos_ += 4;
                    if (code < 0x80) out += static_cast<char>(code);
                    else if (code < 0x800) { out += static_cast<char>(0xC0 | (code >> 6)); out += static_cast<char>(0x80 | (code & 0x3F)); }
                    else { out += static_cast<char>(0xE0 | (code >> 12)); out += static_cast<char>(0x80 | ((code >> 6) & 0x3F)); out += static_cast<char>(0x80 | (code & 0x3F)); }
                    break;
                }
                default: out += e;  // \" \\ \/
            }
        }
        expect('"');
        return out;
    }
};

inline std::string quote(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') { out += '\\'; out += static_cast<char>(c); }
        else if (c < 0x20) { char buf[8]; std::snprintf(buf, sizeof buf, "\\u%04x", c); out += buf; }
        else out += static_cast<char>(c);
    }
    return out + "\"";
}

// One line of the protocol: the next message, or false at the end of input.
inline bool receive(Json& message) {
    std::string line;
    if (!std::getline(std::cin, line)) return false;
    message = JsonReader(line).parse();
    return true;
}

inline void send_raw(const std::string& json) { std::cout << json << '\n' << std::flush; }

inline void send_ready(const std::string& name) { send_raw("{\"type\":\"ready\",\"name\":" + quote(name) + "}"); }

inline void send_action(long long id, const std::string& debug = "") {
    std::string line = "{\"type\":\"action\",\"id\":" + std::to_string(id);
    if (!debug.empty()) line += ",\"debug\":" + quote(debug);
    send_raw(line + "}");
}

// One legal action of a decision: its id and canonical text ("buy L1#3", "place C7" ...).
struct Legal {
    long long id;
    std::string text;
};

inline std::vector<Legal> legal_actions(const Json& decide) {
    std::vector<Legal> out;
    for (const Json& item : decide["observation"]["legal"].items) out.push_back({item["id"].integer(), item["text"].text});
    return out;
}

}  // namespace heights
