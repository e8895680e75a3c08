// Format 2 of the turn analysis row (turn_analysis.h) against format 1: every row the write path
// can produce comes back as the same JSON byte for byte and parses to the same records; rows
// format 2 has no place for stay JSON; broken bytes are a clear error, never a crash.
#include "store/turn_analysis.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engram/testing/status_matchers.h"

namespace engram::store {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using nlohmann::json;
using ::testing::HasSubstr;

struct Case {
  std::string name;
  std::string text;  // the turn's text
  json row;          // the format-1 row (dumped canonically)
};

std::vector<Case> Cases() {
  const std::string unicode = "Zoë moved to Zürich — 東京 next 😀 on 8 May 2023";
  const std::size_t zurich = unicode.find("Zürich");
  const std::size_t tokyo = unicode.find("東京");
  const std::size_t date = unicode.find("8 May 2023");
  return {
      {"empty", "", {{"signals", json::array()}}},
      {"no signals, content only",
       "ok",
       {{"content",
         {{"divergence", 0.0},
          {"entity_count", 0},
          {"entity_norm", 0.0},
          {"information_density", 0.3333},
          {"sentiment", -0.4215},
          {"sentiment_compound", -0.4215},
          {"tokens", 1}}},
        {"signals", json::array()}}},
      {"unicode spans, values as spans and as strings",
       unicode,
       {{"content",
         {{"divergence", 0.7746},
          {"entity_count", 3},
          {"entity_norm", 1.0},
          {"information_density", 0.5385},
          {"sentiment", 0.6997},
          {"sentiment_compound", 0.6997},
          {"tokens", 13}}},
        {"signals",
         {{{"kind", "person"}, {"begin", 0}, {"end", 4}, {"value", "Zoë"}, {"confidence", 0.6}},
          {{"kind", "place"},
           {"begin", zurich},
           {"end", zurich + std::string("Zürich").size()},
           {"value", "Zürich"},
           {"confidence", 0.9}},
          {{"kind", "place"},
           {"begin", tokyo},
           {"end", tokyo + std::string("東京").size()},
           {"value", "Tokyo"}},  // not the span
          {{"kind", "date"},
           {"begin", date},
           {"end", date + 10},
           {"value", "2023-05-08/2023-05-09"},
           {"topic", "day"}}}}}},
      {"every field, unknown kind, topic and polarity, odd numbers",
       "I no longer prefer tea; coffee now, maybe",
       {{"signals",
         {{{"kind", "preference"},
           {"begin", 2},
           {"end", 22},
           {"value", "coffee"},
           {"previous_value", "tea"},
           {"topic", "favorite drink"},
           {"polarity", "+"},
           {"uncertain", true},
           {"confidence", 0.3}},
          {{"kind", "hunch"},  // outside the vocabulary
           {"begin", 0},
           {"end", 1},
           {"topic", "question"},
           {"polarity", "~"},
           {"uncertain", false},
           {"confidence", 0.123456789012}},  // not a short decimal: stored as 8 bytes
          {{"kind", "number"}, {"begin", 40}, {"end", 41}, {"confidence", -2}},
          {{"kind", "url"}, {"begin", 5}, {"end", 5}, {"value", ""}},
          {{"kind", "email"}, {"begin", 30}, {"end", 36}, {"confidence", 1e-12}}}},
        {"content", {{"tokens", 7}, {"sentiment", -0.0}}}}},
      {"a span past the text keeps its value as a string",
       "short",
       {{"signals", {{{"kind", "quoted_string"}, {"begin", 2}, {"end", 90}, {"value", "ort"}}}}}},
  };
}

TEST(TurnAnalysisFormatTest, CompactRowsGiveBackTheJsonByteForByte) {
  for (const Case& test_case : Cases()) {
    const std::string json_row = test_case.row.dump();
    const TurnAnalysisRecord compact = TurnAnalysisRow(7, json_row, test_case.text);
    EXPECT_EQ(compact.turn_row, 7);
    EXPECT_EQ(compact.format, kTurnAnalysisCompactFormat) << test_case.name;
    EXPECT_LT(compact.bytes.size(), json_row.size()) << test_case.name;
    EXPECT_THAT(CheckTurnAnalysisBytes(compact.format, compact.bytes), IsOk()) << test_case.name;
    EXPECT_THAT(TurnAnalysisJson(compact, test_case.text), IsOkAndHolds(json_row))
        << test_case.name;
  }
}

void ExpectSameRecords(const TurnAnalysis& got, const TurnAnalysis& want, const std::string& name) {
  ASSERT_EQ(got.content.has_value(), want.content.has_value()) << name;
  if (want.content.has_value()) {
    EXPECT_EQ(got.content->information_density, want.content->information_density) << name;
    EXPECT_EQ(got.content->sentiment, want.content->sentiment) << name;
    EXPECT_EQ(got.content->sentiment_compound, want.content->sentiment_compound) << name;
    EXPECT_EQ(got.content->entity_count, want.content->entity_count) << name;
    EXPECT_EQ(got.content->entity_norm, want.content->entity_norm) << name;
    EXPECT_EQ(got.content->divergence, want.content->divergence) << name;
    EXPECT_EQ(got.content->tokens, want.content->tokens) << name;
  }
  ASSERT_EQ(got.signals.size(), want.signals.size()) << name;
  for (std::size_t signal_idx = 0; signal_idx < want.signals.size(); ++signal_idx) {
    const AnalysedSignal& a = got.signals[signal_idx];
    const AnalysedSignal& b = want.signals[signal_idx];
    EXPECT_EQ(a.kind, b.kind) << name;
    EXPECT_EQ(a.begin, b.begin) << name;
    EXPECT_EQ(a.end, b.end) << name;
    EXPECT_EQ(a.value, b.value) << name;
    EXPECT_EQ(a.topic, b.topic) << name;
    EXPECT_EQ(a.previous_value, b.previous_value) << name;
    EXPECT_EQ(a.polarity, b.polarity) << name;
    EXPECT_EQ(a.uncertain, b.uncertain) << name;
    EXPECT_EQ(a.confidence, b.confidence) << name;
    EXPECT_EQ(a.from, b.from) << name;
    EXPECT_EQ(a.to, b.to) << name;
  }
}

TEST(TurnAnalysisFormatTest, CompactRowsParseToTheRecordsOfTheJson) {
  for (const Case& test_case : Cases()) {
    const std::string json_row = test_case.row.dump();
    const TurnAnalysisRecord json_record{
        .turn_row = 7, .format = kTurnAnalysisJsonFormat, .bytes = json_row};
    const TurnAnalysisRecord compact = TurnAnalysisRow(7, json_row, test_case.text);
    StatusOr<TurnAnalysis> from_json = ParseTurnAnalysis(json_record, test_case.text);
    StatusOr<TurnAnalysis> from_bytes = ParseTurnAnalysis(compact, test_case.text);
    ASSERT_THAT(from_json, IsOk()) << test_case.name;
    ASSERT_THAT(from_bytes, IsOk()) << test_case.name;
    ExpectSameRecords(*from_bytes, *from_json, test_case.name);
  }
}

TEST(TurnAnalysisFormatTest, ASpanValueIsStoredAsTheSpanAndAnIntervalSplits) {
  const std::string text = "Melanie ran on Sunday";
  const json row = {{"signals",
                     {{{"kind", "person"}, {"begin", 0}, {"end", 7}, {"value", "Melanie"}},
                      {{"kind", "date"},
                       {"begin", 15},
                       {"end", 21},
                       {"value", "2023-05-07/2023-05-08"},
                       {"topic", "day"},
                       {"confidence", 0.9}}}}};
  const TurnAnalysisRecord compact = TurnAnalysisRow(1, row.dump(), text);
  ASSERT_EQ(compact.format, kTurnAnalysisCompactFormat);
  EXPECT_EQ(compact.bytes.find("Melanie"), std::string::npos);  // the span, not the bytes
  StatusOr<TurnAnalysis> parsed = ParseTurnAnalysis(compact, text);
  ASSERT_THAT(parsed, IsOk());
  ASSERT_EQ(parsed->signals.size(), 2u);
  EXPECT_EQ(parsed->signals[0].value, "Melanie");
  EXPECT_EQ(parsed->signals[1].from, "2023-05-07");
  EXPECT_EQ(parsed->signals[1].to, "2023-05-08");
  EXPECT_EQ(parsed->signals[1].confidence, 0.9);
  EXPECT_EQ(parsed->signals[1].topic, "day");
}

TEST(TurnAnalysisFormatTest, RowsFormatTwoHasNoPlaceForStayJson) {
  const std::vector<std::string> rows = {
      R"({"marker":"x"})",                                          // an unknown top-level key
      R"({"signals":[{"kind":"x"}]})",                              // no span
      R"({"signals":[{"begin":3,"end":1,"kind":"x"}]})",            // end before begin
      R"({"signals":[{"begin":0,"end":1,"kind":"x","extra":1}]})",  // an unknown signal key
      R"({"signals":[{"begin":0,"end":1,"kind":"x","value":5}]})",  // a value that is a number
      R"({"content":{"tokens":1,"mood":2},"signals":[]})",          // an unknown content key
      R"({"content":{"tokens":"1"},"signals":[]})",                 // a string as a number
      R"({"signals":[{"begin":0,"end":1,"kind":"x","uncertain":1}]})",
      R"({"signals": []})",  // not canonical: the JSON would not come back byte for byte
      "not json",
  };
  for (const std::string& row : rows) {
    const TurnAnalysisRecord record = TurnAnalysisRow(3, row, "some text");
    EXPECT_EQ(record.format, kTurnAnalysisJsonFormat) << row;
    EXPECT_EQ(record.bytes, row);
  }
}

TEST(TurnAnalysisFormatTest, JsonRowsStillParse) {
  const TurnAnalysisRecord record{
      .turn_row = 4,
      .format = kTurnAnalysisJsonFormat,
      .bytes = R"({"signals":[{"begin":0,"end":2,"kind":"person","value":"Al"}]})"};
  StatusOr<TurnAnalysis> parsed = ParseTurnAnalysis(record, "");
  ASSERT_THAT(parsed, IsOk());
  ASSERT_EQ(parsed->signals.size(), 1u);
  EXPECT_EQ(parsed->signals[0].value, "Al");
  EXPECT_THAT(TurnAnalysisJson(record, ""), IsOkAndHolds(record.bytes));
}

TEST(TurnAnalysisFormatTest, EveryTruncationOfACompactRowIsACorruptionError) {
  const Case test_case = Cases()[2];
  const TurnAnalysisRecord compact = TurnAnalysisRow(9, test_case.row.dump(), test_case.text);
  ASSERT_EQ(compact.format, kTurnAnalysisCompactFormat);
  for (std::size_t size = 0; size < compact.bytes.size(); ++size) {
    const TurnAnalysisRecord cut{.turn_row = 9,
                                 .format = kTurnAnalysisCompactFormat,
                                 .bytes = compact.bytes.substr(0, size)};
    EXPECT_THAT(ParseTurnAnalysis(cut, test_case.text),
                StatusIs(StatusCode::kCorruption, HasSubstr("node row 9")))
        << size;
    EXPECT_THAT(TurnAnalysisJson(cut, test_case.text), StatusIs(StatusCode::kCorruption)) << size;
    EXPECT_THAT(CheckTurnAnalysisBytes(kTurnAnalysisCompactFormat, cut.bytes),
                StatusIs(StatusCode::kInvalidArgument))
        << size;
  }
  TurnAnalysisRecord longer = compact;
  longer.bytes += '\x01';
  EXPECT_THAT(ParseTurnAnalysis(longer, test_case.text),
              StatusIs(StatusCode::kCorruption, HasSubstr("after the last signal")));
}

TEST(TurnAnalysisFormatTest, BadBytesAreNamedNotCrashedOn) {
  const auto parse = [](std::string bytes, std::string_view text = "hello world") {
    return ParseTurnAnalysis(
        {.turn_row = 5, .format = kTurnAnalysisCompactFormat, .bytes = std::move(bytes)}, text);
  };
  // A varint that never ends, and one over 64 bits.
  EXPECT_THAT(parse(std::string("\x00\xff\xff\xff", 4)),
              StatusIs(StatusCode::kCorruption, HasSubstr("truncated varint")));
  EXPECT_THAT(parse(std::string("\x00", 1) + std::string(10, '\xff') + "\x01"),
              StatusIs(StatusCode::kCorruption, HasSubstr("over 64 bits")));
  // Unknown header bits, a signal count the bytes cannot hold, an unknown kind code.
  EXPECT_THAT(parse(std::string("\x80\x00", 2)),
              StatusIs(StatusCode::kCorruption, HasSubstr("header")));
  EXPECT_THAT(parse(std::string("\x00\x7f\x01\x00\x00\x00", 6)),
              StatusIs(StatusCode::kCorruption, HasSubstr("signal count")));
  EXPECT_THAT(parse(std::string("\x00\x01\x7f\x00\x00\x01", 6)),
              StatusIs(StatusCode::kCorruption, HasSubstr("unknown kind code")));
  // A value kept as a span that the turn's text does not hold.
  EXPECT_THAT(parse(std::string("\x00\x01\x0d\x01\x00\x05", 6), "hey"),
              StatusIs(StatusCode::kCorruption, HasSubstr("outside the turn's text")));
  EXPECT_THAT(parse(std::string("\x00\x01\x0d\x01\x00\x05", 6), "hello"), IsOk());
  // A string longer than the row.
  EXPECT_THAT(parse(std::string("\x00\x01\x00\x50"
                                "abc",
                                7)),
              StatusIs(StatusCode::kCorruption, HasSubstr("runs past the end")));
  // A format nobody wrote.
  EXPECT_THAT(ParseTurnAnalysis({.turn_row = 5, .format = 3, .bytes = "{}"}, ""),
              StatusIs(StatusCode::kCorruption, HasSubstr("format 3")));
}

}  // namespace
}  // namespace engram::store
