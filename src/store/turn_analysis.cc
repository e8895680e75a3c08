// The turn analysis row's layout (see turn_analysis.h).
#include "store/turn_analysis.h"

#include <nlohmann/json.hpp>
#include <set>

namespace engram::store {

StatusOr<std::string> TurnAnalysisFromSignals(std::span<const std::string> signal_contents) {
  using nlohmann::json;
  json row = json::object();
  json signals = json::array();
  std::set<std::string> seen;
  for (const std::string& text : signal_contents) {
    json signal = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!signal.is_object() || !signal.contains("kind") || !signal["kind"].is_string()) {
      return Status::InvalidArgument("turn analysis: signal content is not an object with a kind: " +
                                     text.substr(0, 80));
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

std::string_view AnalysedSignal::Surface(std::string_view turn_text) const {
  if (begin > end || end > turn_text.size()) return "";
  return turn_text.substr(begin, end - begin);
}

StatusOr<TurnAnalysis> ParseTurnAnalysis(const TurnAnalysisRecord& record) {
  using nlohmann::json;
  const auto corrupt = [&](std::string_view what) {
    return Status::Corruption("turn analysis of node row " + std::to_string(record.turn_row) +
                              ": " + std::string(what));
  };
  if (record.format != kTurnAnalysisFormat) {
    return corrupt("format " + std::to_string(record.format) + " is unknown to this engram (it reads " +
                   std::to_string(kTurnAnalysisFormat) + ")");
  }
  const json row = json::parse(record.json, nullptr, /*allow_exceptions=*/false);
  if (!row.is_object()) return corrupt("not a JSON object");
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
    if (!content->is_object()) return corrupt("\"content\" is not an object");
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
  if (signals == row.end() || !signals->is_array()) return corrupt("no \"signals\" array");
  for (const json& entry : *signals) {
    if (!entry.is_object() || !entry.contains("kind") || !entry["kind"].is_string() ||
        !entry.contains("begin") || !entry["begin"].is_number_unsigned() ||
        !entry.contains("end") || !entry["end"].is_number_unsigned()) {
      return corrupt("a signal without kind, begin and end");
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
    if (signal.kind == "date" || signal.kind == "time") {
      const std::size_t slash = signal.value.find('/');
      if (slash != std::string::npos) {
        signal.from = signal.value.substr(0, slash);
        signal.to = signal.value.substr(slash + 1);
      }
    }
    analysis.signals.push_back(std::move(signal));
  }
  return analysis;
}

}  // namespace engram::store
