// The turn analysis row's layouts (see turn_analysis.h): format 1, canonical JSON, and format 2,
// the same fields in bytes.
#include "store/turn_analysis.h"

#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

namespace engram::store {
namespace {

using nlohmann::json;

// The code tables of format 2 (code = index + 1; 0 means "a string follows"). Append only: a
// stored code must keep its name.
constexpr std::array<std::string_view, 26> kKinds = {
    "date",       "time",       "money",        "percent",    "quantity",   "number",
    "version",    "url",        "email",        "ip_address", "identifier", "quoted_string",
    "person",     "place",      "organization", "preference", "constraint", "current_state",
    "past_state", "correction", "replacement",  "decision",   "approval",   "rejection",
    "query_like", "ack_like"};
// Topics the detectors name from a fixed list: date and time granularities, memory-act topics,
// IP versions. Topics made of the turn's words ("favorite color") are stored as strings.
constexpr std::array<std::string_view, 42> kTopics = {
    "instant",    "minute",      "hour",   "part_of_day", "day",        "week",      "weekend",
    "month",      "season",      "year",   "decade",      "vague",      "question",  "approval",
    "preference", "instruction", "social", "possession",  "correction", "state",     "decision",
    "rejection",  "replacement", "diet",   "habit",       "identity",   "allergy",   "intolerance",
    "job",        "goal",        "avoid",  "budget",      "limitation", "residence", "employer",
    "name",       "ordinal",     "v4",     "v6",          "location",   "address",   "favorite"};
constexpr std::array<std::string_view, 2> kPolarities = {"+", "-"};
// The content object's keys, in the order of its presence bits (and of the JSON's sorted keys).
constexpr std::array<std::string_view, 7> kContentKeys = {
    "divergence", "entity_count",       "entity_norm", "information_density",
    "sentiment",  "sentiment_compound", "tokens"};

constexpr std::uint8_t kHasContent = 0x01;
constexpr std::uint8_t kValueBits = 0x03;
constexpr std::uint8_t kValueSpan = 0x01;
constexpr std::uint8_t kValueString = 0x02;
constexpr std::uint8_t kHasTopic = 0x04;
constexpr std::uint8_t kHasPreviousValue = 0x08;
constexpr std::uint8_t kHasPolarity = 0x10;
constexpr std::uint8_t kHasUncertain = 0x20;
constexpr std::uint8_t kUncertain = 0x40;
constexpr std::uint8_t kHasConfidence = 0x80;

constexpr std::uint8_t kTagUnsigned = 0;
constexpr std::uint8_t kTagNegative = 1;
constexpr std::uint8_t kTagDecimal = 2;  // 2 + d: k / 10^d, d = 0 .. kMaxDecimals
constexpr int kMaxDecimals = 9;
constexpr std::uint8_t kTagFloat64 = kTagDecimal + kMaxDecimals + 1;
constexpr std::array<double, kMaxDecimals + 1> kPowersOfTen = {1e0, 1e1, 1e2, 1e3, 1e4,
                                                               1e5, 1e6, 1e7, 1e8, 1e9};

std::uint64_t ZigZag(std::int64_t value) {
  return (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
}
std::int64_t UnZigZag(std::uint64_t value) {
  return static_cast<std::int64_t>(value >> 1) ^ -static_cast<std::int64_t>(value & 1);
}

// A JSON number as format 2 keeps it: its JSON type and value.
struct Number {
  enum class Type { kUnsigned, kNegative, kFloat } type = Type::kUnsigned;
  std::uint64_t magnitude = 0;  // kUnsigned: the value; kNegative: -(value + 1)
  double real = 0;              // kFloat

  double AsDouble() const {
    switch (type) {
      case Type::kUnsigned:
        return static_cast<double>(magnitude);
      case Type::kNegative:
        return -static_cast<double>(magnitude) - 1.0;
      case Type::kFloat:
        return real;
    }
    return 0;
  }
  json AsJson() const {
    switch (type) {
      case Type::kUnsigned:
        return json(magnitude);
      case Type::kNegative:
        return json(-static_cast<std::int64_t>(magnitude) - 1);
      case Type::kFloat:
        return json(real);
    }
    return json();
  }
};

// Appends format-2 pieces.
class Writer {
 public:
  void Byte(std::uint8_t value) { out_.push_back(static_cast<char>(value)); }
  void Varint(std::uint64_t value) {
    while (value >= 0x80) {
      Byte(static_cast<std::uint8_t>(value | 0x80));
      value >>= 7;
    }
    Byte(static_cast<std::uint8_t>(value));
  }
  void String(std::string_view value) {
    Varint(value.size());
    out_.append(value);
  }
  // A code of `table` (index + 1), or 0 and the string.
  template <std::size_t N>
  void Coded(const std::array<std::string_view, N>& table, std::string_view value) {
    for (std::size_t code_idx = 0; code_idx < N; ++code_idx) {
      if (table[code_idx] == value) {
        Varint(code_idx + 1);
        return;
      }
    }
    Varint(0);
    String(value);
  }
  // False for a value that is not a JSON number.
  bool JsonNumber(const json& value) {
    if (value.is_number_unsigned()) {
      Byte(kTagUnsigned);
      Varint(value.get<std::uint64_t>());
      return true;
    }
    if (value.is_number_integer()) {
      const std::int64_t integer = value.get<std::int64_t>();
      if (integer >= 0) return false;  // nlohmann parses these as unsigned
      Byte(kTagNegative);
      Varint(static_cast<std::uint64_t>(-(integer + 1)));
      return true;
    }
    if (!value.is_number_float()) return false;
    const double real = value.get<double>();
    if (!std::signbit(real) || real != 0) {
      for (int decimals = 0; decimals <= kMaxDecimals; ++decimals) {
        const double scaled = real * kPowersOfTen[decimals];
        if (!(std::fabs(scaled) < 9007199254740992.0)) break;  // 2^53
        const std::int64_t units = std::llround(scaled);
        if (static_cast<double>(units) / kPowersOfTen[decimals] == real) {
          Byte(static_cast<std::uint8_t>(kTagDecimal + decimals));
          Varint(ZigZag(units));
          return true;
        }
      }
    }
    Byte(kTagFloat64);
    const auto bits = std::bit_cast<std::uint64_t>(real);
    for (int shift = 0; shift < 64; shift += 8) Byte(static_cast<std::uint8_t>(bits >> shift));
    return true;
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

const json* Find(const json& object, const char* key) {
  const auto found = object.find(key);
  return found == object.end() ? nullptr : &*found;
}

// Format 2 of a parsed format-1 row; nullopt when the row has a key or type format 2 has no
// place for (the caller keeps the JSON then).
std::optional<std::string> Encode(const json& row, std::string_view turn_text) {
  if (!row.is_object()) return std::nullopt;
  const json* content = Find(row, "content");
  const json* signals = Find(row, "signals");
  if (signals == nullptr || !signals->is_array() || row.size() != (content == nullptr ? 1u : 2u)) {
    return std::nullopt;
  }
  Writer out;
  out.Byte(content != nullptr ? kHasContent : 0);
  if (content != nullptr) {
    if (!content->is_object()) return std::nullopt;
    std::uint8_t present = 0;
    for (std::size_t key_idx = 0; key_idx < kContentKeys.size(); ++key_idx) {
      if (content->contains(kContentKeys[key_idx])) present |= 1u << key_idx;
    }
    if (static_cast<std::size_t>(std::popcount(present)) != content->size()) return std::nullopt;
    out.Byte(present);
    for (const std::string_view key : kContentKeys) {
      const auto found = content->find(key);
      if (found != content->end() && !out.JsonNumber(*found)) return std::nullopt;
    }
  }
  out.Varint(signals->size());
  std::int64_t previous_begin = 0;
  for (const json& signal : *signals) {
    if (!signal.is_object()) return std::nullopt;
    const json* kind = Find(signal, "kind");
    const json* begin = Find(signal, "begin");
    const json* end = Find(signal, "end");
    if (kind == nullptr || !kind->is_string() || begin == nullptr || !begin->is_number_unsigned() ||
        end == nullptr || !end->is_number_unsigned()) {
      return std::nullopt;
    }
    const std::uint64_t from = begin->get<std::uint64_t>();
    const std::uint64_t to = end->get<std::uint64_t>();
    if (to < from || to > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
    std::size_t keys = 3;
    std::uint8_t flags = 0;
    const json* value = Find(signal, "value");
    const json* topic = Find(signal, "topic");
    const json* previous_value = Find(signal, "previous_value");
    const json* polarity = Find(signal, "polarity");
    const json* uncertain = Find(signal, "uncertain");
    const json* confidence = Find(signal, "confidence");
    for (const json* text_field : {value, topic, previous_value, polarity}) {
      if (text_field != nullptr && !text_field->is_string()) return std::nullopt;
    }
    if (uncertain != nullptr && !uncertain->is_boolean()) return std::nullopt;
    if (confidence != nullptr && !confidence->is_number()) return std::nullopt;
    if (value != nullptr) {
      ++keys;
      const std::string& text = value->get_ref<const std::string&>();
      flags |= to <= turn_text.size() && turn_text.substr(from, to - from) == text ? kValueSpan
                                                                                   : kValueString;
    }
    if (topic != nullptr) ++keys, flags |= kHasTopic;
    if (previous_value != nullptr) ++keys, flags |= kHasPreviousValue;
    if (polarity != nullptr) ++keys, flags |= kHasPolarity;
    if (uncertain != nullptr) {
      ++keys;
      flags |= kHasUncertain | (uncertain->get<bool>() ? kUncertain : 0);
    }
    if (confidence != nullptr) ++keys, flags |= kHasConfidence;
    if (keys != signal.size()) return std::nullopt;
    out.Coded(kKinds, kind->get_ref<const std::string&>());
    out.Byte(flags);
    out.Varint(ZigZag(static_cast<std::int64_t>(from) - previous_begin));
    previous_begin = static_cast<std::int64_t>(from);
    out.Varint(to - from);
    if ((flags & kValueBits) == kValueString) out.String(value->get_ref<const std::string&>());
    if (topic != nullptr) out.Coded(kTopics, topic->get_ref<const std::string&>());
    if (previous_value != nullptr) out.String(previous_value->get_ref<const std::string&>());
    if (polarity != nullptr) out.Coded(kPolarities, polarity->get_ref<const std::string&>());
    if (confidence != nullptr) out.JsonNumber(*confidence);
  }
  return out.Take();
}

// A format-2 row, decoded.
struct DecodedSignal {
  std::string kind;
  std::uint8_t flags = 0;
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  std::string value;  // the string, or the span when flagged so and the text was given
  std::string topic;
  std::string previous_value;
  std::string polarity;
  Number confidence;
};
struct DecodedRow {
  std::optional<std::array<std::optional<Number>, kContentKeys.size()>> content;
  std::vector<DecodedSignal> signals;
};

// Reads format-2 pieces; the first failure is kept as a message naming the byte it met.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  bool Byte(std::uint8_t* value) {
    if (pos_ >= bytes_.size()) return Fail("truncated (a field runs past the end)");
    *value = static_cast<std::uint8_t>(bytes_[pos_++]);
    return true;
  }
  bool Varint(std::uint64_t* value) {
    *value = 0;
    const std::size_t start = pos_;
    for (int shift = 0;; shift += 7) {
      if (pos_ >= bytes_.size()) return Fail("truncated varint at byte " + std::to_string(start));
      const auto byte = static_cast<std::uint8_t>(bytes_[pos_++]);
      if (shift == 63 && byte > 1) {
        return Fail("varint over 64 bits at byte " + std::to_string(start));
      }
      *value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
      if (shift == 63) return Fail("varint over 64 bits at byte " + std::to_string(start));
    }
  }
  bool String(std::string* value) {
    std::uint64_t size = 0;
    if (!Varint(&size)) return false;
    if (size > bytes_.size() - pos_) {
      return Fail("a string of " + std::to_string(size) + " bytes runs past the end");
    }
    value->assign(bytes_.substr(pos_, size));
    pos_ += size;
    return true;
  }
  template <std::size_t N>
  bool Coded(const std::array<std::string_view, N>& table, const char* what, std::string* value) {
    std::uint64_t code = 0;
    if (!Varint(&code)) return false;
    if (code == 0) return String(value);
    if (code > N) return Fail(std::string("unknown ") + what + " code " + std::to_string(code));
    value->assign(table[code - 1]);
    return true;
  }
  bool ReadNumber(Number* value) {
    std::uint8_t tag = 0;
    if (!Byte(&tag)) return false;
    if (tag == kTagUnsigned || tag == kTagNegative) {
      value->type = tag == kTagUnsigned ? Number::Type::kUnsigned : Number::Type::kNegative;
      if (!Varint(&value->magnitude)) return false;
      if (tag == kTagNegative &&
          value->magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return Fail("negative integer out of range");
      }
      return true;
    }
    value->type = Number::Type::kFloat;
    if (tag < kTagFloat64) {
      std::uint64_t units = 0;
      if (!Varint(&units)) return false;
      value->real = static_cast<double>(UnZigZag(units)) / kPowersOfTen[tag - kTagDecimal];
      return true;
    }
    if (tag != kTagFloat64) return Fail("unknown number tag " + std::to_string(tag));
    if (bytes_.size() - pos_ < 8) return Fail("truncated float");
    std::uint64_t bits = 0;
    for (int shift = 0; shift < 64; shift += 8) {
      bits |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(bytes_[pos_++])) << shift;
    }
    value->real = std::bit_cast<double>(bits);
    if (!std::isfinite(value->real)) return Fail("a float that is not finite");
    return true;
  }
  bool AtEnd() const { return pos_ == bytes_.size(); }
  std::size_t Remaining() const { return bytes_.size() - pos_; }
  bool Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }
  const std::string& error() const { return error_; }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
  std::string error_;
};

// Decodes a format-2 row. With `turn_text`, a value kept as the span is filled in from it (a
// span outside the text fails); without, only the bytes are checked.
bool Decode(const std::string_view* turn_text, DecodedRow* row, Reader& in) {
  std::uint8_t header = 0;
  if (!in.Byte(&header)) return false;
  if ((header & ~kHasContent) != 0) return in.Fail("unknown header bits");
  if ((header & kHasContent) != 0) {
    auto& content = row->content.emplace();
    std::uint8_t present = 0;
    if (!in.Byte(&present)) return false;
    if (present >> kContentKeys.size() != 0) return in.Fail("unknown content bits");
    for (std::size_t key_idx = 0; key_idx < kContentKeys.size(); ++key_idx) {
      if ((present & (1u << key_idx)) == 0) continue;
      if (!in.ReadNumber(&content[key_idx].emplace())) return false;
    }
  }
  std::uint64_t count = 0;
  if (!in.Varint(&count)) return false;
  // Every signal takes at least four bytes: a count beyond that is corrupt, not a huge reserve.
  if (count > in.Remaining() / 4)
    return in.Fail("signal count " + std::to_string(count) + " does not fit the row");
  row->signals.reserve(count);
  std::int64_t previous_begin = 0;
  for (std::uint64_t signal_idx = 0; signal_idx < count; ++signal_idx) {
    DecodedSignal& signal = row->signals.emplace_back();
    std::uint64_t delta = 0;
    std::uint64_t length = 0;
    if (!in.Coded(kKinds, "kind", &signal.kind) || !in.Byte(&signal.flags) || !in.Varint(&delta) ||
        !in.Varint(&length)) {
      return false;
    }
    const std::int64_t begin = previous_begin + UnZigZag(delta);
    constexpr std::int64_t kMax = std::numeric_limits<std::uint32_t>::max();
    if (begin < 0 || begin > kMax || length > static_cast<std::uint64_t>(kMax - begin)) {
      return in.Fail("signal " + std::to_string(signal_idx) + ": span out of range");
    }
    previous_begin = begin;
    signal.begin = static_cast<std::uint32_t>(begin);
    signal.end = static_cast<std::uint32_t>(begin + static_cast<std::int64_t>(length));
    switch (signal.flags & kValueBits) {
      case 0:
        break;
      case kValueSpan:
        if (turn_text != nullptr) {
          if (signal.end > turn_text->size()) {
            return in.Fail("signal " + std::to_string(signal_idx) + ": span [" +
                           std::to_string(signal.begin) + ", " + std::to_string(signal.end) +
                           ") outside the turn's text of " + std::to_string(turn_text->size()) +
                           " bytes");
          }
          signal.value.assign(turn_text->substr(signal.begin, length));
        }
        break;
      case kValueString:
        if (!in.String(&signal.value)) return false;
        break;
      default:
        return in.Fail("signal " + std::to_string(signal_idx) + ": unknown value form");
    }
    if ((signal.flags & kHasTopic) != 0 && !in.Coded(kTopics, "topic", &signal.topic)) return false;
    if ((signal.flags & kHasPreviousValue) != 0 && !in.String(&signal.previous_value)) return false;
    if ((signal.flags & kHasPolarity) != 0 &&
        !in.Coded(kPolarities, "polarity", &signal.polarity)) {
      return false;
    }
    if ((signal.flags & (kHasUncertain | kUncertain)) == kUncertain) {
      return in.Fail("signal " + std::to_string(signal_idx) + ": uncertain without its flag");
    }
    if ((signal.flags & kHasConfidence) != 0 && !in.ReadNumber(&signal.confidence)) return false;
  }
  if (!in.AtEnd()) return in.Fail(std::to_string(in.Remaining()) + " bytes after the last signal");
  return true;
}

Status Corrupt(const TurnAnalysisRecord& record, std::string_view what) {
  return Status::Corruption("turn analysis of node row " + std::to_string(record.turn_row) + ": " +
                            std::string(what));
}

StatusOr<DecodedRow> DecodeRecord(const TurnAnalysisRecord& record, std::string_view turn_text) {
  DecodedRow row;
  Reader in(record.bytes);
  if (!Decode(&turn_text, &row, in)) return Corrupt(record, in.error());
  return row;
}

// The format-1 JSON of a decoded row.
StatusOr<std::string> ToJson(const TurnAnalysisRecord& record, const DecodedRow& row) {
  json out = json::object();
  if (row.content.has_value()) {
    json content = json::object();
    for (std::size_t key_idx = 0; key_idx < kContentKeys.size(); ++key_idx) {
      if ((*row.content)[key_idx].has_value()) {
        content[std::string(kContentKeys[key_idx])] = (*row.content)[key_idx]->AsJson();
      }
    }
    out["content"] = std::move(content);
  }
  json signals = json::array();
  for (const DecodedSignal& signal : row.signals) {
    json entry = {{"kind", signal.kind}, {"begin", signal.begin}, {"end", signal.end}};
    if ((signal.flags & kValueBits) != 0) entry["value"] = signal.value;
    if ((signal.flags & kHasTopic) != 0) entry["topic"] = signal.topic;
    if ((signal.flags & kHasPreviousValue) != 0) entry["previous_value"] = signal.previous_value;
    if ((signal.flags & kHasPolarity) != 0) entry["polarity"] = signal.polarity;
    if ((signal.flags & kHasUncertain) != 0) entry["uncertain"] = (signal.flags & kUncertain) != 0;
    if ((signal.flags & kHasConfidence) != 0) entry["confidence"] = signal.confidence.AsJson();
    signals.push_back(std::move(entry));
  }
  out["signals"] = std::move(signals);
  try {
    return out.dump();
  } catch (const json::exception&) {
    return Corrupt(record, "a string that is not valid UTF-8");
  }
}

void SplitInterval(AnalysedSignal& signal) {
  if (signal.kind != "date" && signal.kind != "time") return;
  const std::size_t slash = signal.value.find('/');
  if (slash != std::string::npos) {
    signal.from = signal.value.substr(0, slash);
    signal.to = signal.value.substr(slash + 1);
  }
}

StatusOr<TurnAnalysis> ParseJsonRow(const TurnAnalysisRecord& record) {
  const json row = json::parse(record.bytes, nullptr, /*allow_exceptions=*/false);
  if (!row.is_object()) return Corrupt(record, "not a JSON object");
  TurnAnalysis analysis;
  const auto number = [](const json& object, const char* key) {
    const auto found = object.find(key);
    return found != object.end() && found->is_number() ? found->get<double>() : 0.0;
  };
  const auto text = [](const json& object, const char* key) {
    const auto found = object.find(key);
    return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
  };
  if (const auto content = row.find("content"); content != row.end()) {
    if (!content->is_object()) return Corrupt(record, "\"content\" is not an object");
    AnalysedContent& out = analysis.content.emplace();
    out.information_density = number(*content, "information_density");
    out.sentiment = number(*content, "sentiment");
    out.sentiment_compound = number(*content, "sentiment_compound");
    out.entity_count = static_cast<std::int64_t>(number(*content, "entity_count"));
    out.entity_norm = number(*content, "entity_norm");
    out.divergence = number(*content, "divergence");
    out.tokens = static_cast<std::int64_t>(number(*content, "tokens"));
  }
  const auto signals = row.find("signals");
  if (signals == row.end() || !signals->is_array()) return Corrupt(record, "no \"signals\" array");
  for (const json& entry : *signals) {
    if (!entry.is_object() || !entry.contains("kind") || !entry["kind"].is_string() ||
        !entry.contains("begin") || !entry["begin"].is_number_unsigned() ||
        !entry.contains("end") || !entry["end"].is_number_unsigned()) {
      return Corrupt(record, "a signal without kind, begin and end");
    }
    AnalysedSignal signal;
    signal.kind = entry["kind"].get<std::string>();
    signal.begin = entry["begin"].get<std::uint32_t>();
    signal.end = entry["end"].get<std::uint32_t>();
    signal.value = text(entry, "value");
    signal.topic = text(entry, "topic");
    signal.previous_value = text(entry, "previous_value");
    signal.polarity = text(entry, "polarity");
    signal.uncertain = entry.value("uncertain", false);
    if (entry.contains("confidence")) signal.confidence = number(entry, "confidence");
    SplitInterval(signal);
    analysis.signals.push_back(std::move(signal));
  }
  return analysis;
}

StatusOr<TurnAnalysis> ParseCompactRow(const TurnAnalysisRecord& record,
                                       std::string_view turn_text) {
  ASSIGN_OR_RETURN(DecodedRow row, DecodeRecord(record, turn_text));
  TurnAnalysis analysis;
  if (row.content.has_value()) {
    const auto value = [&](std::size_t key_idx) {
      const std::optional<Number>& number = (*row.content)[key_idx];
      return number.has_value() ? number->AsDouble() : 0.0;
    };
    AnalysedContent& out = analysis.content.emplace();
    out.divergence = value(0);
    out.entity_count = static_cast<std::int64_t>(value(1));
    out.entity_norm = value(2);
    out.information_density = value(3);
    out.sentiment = value(4);
    out.sentiment_compound = value(5);
    out.tokens = static_cast<std::int64_t>(value(6));
  }
  analysis.signals.reserve(row.signals.size());
  for (DecodedSignal& decoded : row.signals) {
    AnalysedSignal& signal = analysis.signals.emplace_back();
    signal.kind = std::move(decoded.kind);
    signal.begin = decoded.begin;
    signal.end = decoded.end;
    signal.value = std::move(decoded.value);
    signal.topic = std::move(decoded.topic);
    signal.previous_value = std::move(decoded.previous_value);
    signal.polarity = std::move(decoded.polarity);
    signal.uncertain = (decoded.flags & kUncertain) != 0;
    if ((decoded.flags & kHasConfidence) != 0) signal.confidence = decoded.confidence.AsDouble();
    SplitInterval(signal);
  }
  return analysis;
}

Status UnknownFormat(const TurnAnalysisRecord& record) {
  return Corrupt(record, "format " + std::to_string(record.format) +
                             " is unknown to this engram (it reads 1 and 2)");
}

}  // namespace

StatusOr<std::string> TurnAnalysisFromSignals(std::span<const std::string> signal_contents) {
  json row = json::object();
  json signals = json::array();
  std::set<std::string> seen;
  for (const std::string& text : signal_contents) {
    json signal = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!signal.is_object() || !signal.contains("kind") || !signal["kind"].is_string()) {
      return Status::InvalidArgument(
          "turn analysis: signal content is not an object with a kind: " + text.substr(0, 80));
    }
    for (const char* dropped : {"turn", "surface", "from", "to", "granularity"}) {
      signal.erase(dropped);
    }
    if (signal["kind"] == "content") {
      signal.erase("kind");
      row["content"] = std::move(signal);
      continue;
    }
    if (!seen.insert(signal.dump()).second) continue;
    signals.push_back(std::move(signal));
  }
  row["signals"] = std::move(signals);
  return row.dump();
}

TurnAnalysisRecord TurnAnalysisRow(std::int64_t turn_row, std::string json_row,
                                   std::string_view turn_text) {
  TurnAnalysisRecord record{.turn_row = turn_row, .format = kTurnAnalysisJsonFormat};
  const json parsed = json::parse(json_row, nullptr, /*allow_exceptions=*/false);
  if (std::optional<std::string> bytes = Encode(parsed, turn_text); bytes.has_value()) {
    const TurnAnalysisRecord compact{
        .turn_row = turn_row, .format = kTurnAnalysisCompactFormat, .bytes = std::move(*bytes)};
    const StatusOr<std::string> back = TurnAnalysisJson(compact, turn_text);
    if (back.ok() && *back == json_row) return compact;
  }
  record.bytes = std::move(json_row);
  return record;
}

StatusOr<std::string> TurnAnalysisJson(const TurnAnalysisRecord& record,
                                       std::string_view turn_text) {
  if (record.format == kTurnAnalysisJsonFormat) return record.bytes;
  if (record.format != kTurnAnalysisCompactFormat) return UnknownFormat(record);
  ASSIGN_OR_RETURN(const DecodedRow row, DecodeRecord(record, turn_text));
  return ToJson(record, row);
}

Status CheckTurnAnalysisBytes(int format, std::string_view bytes) {
  if (format == kTurnAnalysisCompactFormat) {
    DecodedRow row;
    Reader in(bytes);
    if (!Decode(nullptr, &row, in)) {
      return Status::InvalidArgument("the analysis is not a format-2 row: " + in.error());
    }
    return Status::Ok();
  }
  if (format != kTurnAnalysisCompactFormat &&
      (bytes.empty() || bytes.front() != '{' || !json::accept(bytes))) {
    return Status::InvalidArgument("the analysis is not a JSON object");
  }
  return Status::Ok();
}

std::string_view AnalysedSignal::Surface(std::string_view turn_text) const {
  if (begin > end || end > turn_text.size()) return "";
  return turn_text.substr(begin, end - begin);
}

StatusOr<TurnAnalysis> ParseTurnAnalysis(const TurnAnalysisRecord& record,
                                         std::string_view turn_text) {
  if (record.format == kTurnAnalysisJsonFormat) return ParseJsonRow(record);
  if (record.format == kTurnAnalysisCompactFormat) return ParseCompactRow(record, turn_text);
  return UnknownFormat(record);
}

}  // namespace engram::store
