// Tests for engram_io: file reading (plain, zstd, errors), the JSONL turn format, the LoCoMo and
// LongMemEval importers (synthetic inputs and the real development files) and the JSON encoding
// of API types (golden strings).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "engram/testing/bench_data.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "io/api_json.h"
#include "io/file_reader.h"
#include "io/locomo.h"
#include "io/longmemeval.h"
#include "io/turns_jsonl.h"

namespace engram::io {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

namespace fs = std::filesystem;
using ::engram::testing::TempDir;

std::string Compress(const std::string& data, int level = 3) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const std::size_t size = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
  EXPECT_FALSE(ZSTD_isError(size)) << ZSTD_getErrorName(size);
  out.resize(size);
  return out;
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::vector<std::string> lines;
  StatusOr<std::unique_ptr<LineReader>> reader = LineReader::Open(path);
  EXPECT_THAT(reader, IsOk());
  if (!reader.ok()) return lines;
  std::string line;
  while (true) {
    StatusOr<bool> got = (*reader)->Next(&line);
    EXPECT_THAT(got, IsOk());
    if (!got.ok() || !*got) break;
    lines.push_back(line);
  }
  return lines;
}

// ---- file_reader -------------------------------------------------------------------------

TEST(FileReaderTest, ReadsPlainFile) {
  TempDir dir;
  EXPECT_THAT(ReadFile(dir.File("a.txt", "hello\nworld")),
              IsOkAndHolds(std::string("hello\nworld")));
  EXPECT_THAT(ReadFile(dir.File("empty.txt", "")), IsOkAndHolds(std::string()));
}

TEST(FileReaderTest, MissingFileIsNotFoundAndNamesIt) {
  EXPECT_THAT(ReadFile("/nonexistent/turns.jsonl"),
              StatusIs(StatusCode::kNotFound, HasSubstr("/nonexistent/turns.jsonl")));
  EXPECT_THAT(LineReader::Open("/nonexistent/x.zst"), StatusIs(StatusCode::kNotFound));
}

TEST(FileReaderTest, DirectoryIsRejected) {
  TempDir dir;
  EXPECT_THAT(ReadFile(dir.File("")),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("directory")));
}

TEST(FileReaderTest, ZstdRoundTripByExtensionAndByMagic) {
  TempDir dir;
  std::string data;
  for (int line_idx = 0; line_idx < 20000; ++line_idx) {
    data += "line " + std::to_string(line_idx) + " of a compressed file\n";
  }
  ASSERT_GT(data.size(), 512u * 1024);  // larger than one decoder chunk
  const std::string compressed = Compress(data);
  EXPECT_THAT(ReadFile(dir.File("data.txt.zst", compressed)), IsOkAndHolds(data));
  EXPECT_THAT(ReadFile(dir.File("data.bin", compressed)), IsOkAndHolds(data));
  const std::vector<std::string> lines = ReadLines(dir.File("lines.zst", compressed));
  ASSERT_THAT(lines, SizeIs(20000));
  EXPECT_EQ(lines[0], "line 0 of a compressed file");
  EXPECT_EQ(lines[19999], "line 19999 of a compressed file");
}

TEST(FileReaderTest, ZstdConcatenatedFramesAreOneStream) {
  TempDir dir;
  const std::string path = dir.File("two.zst", Compress("first\n") + Compress("second\n"));
  EXPECT_THAT(ReadFile(path), IsOkAndHolds(std::string("first\nsecond\n")));
}

TEST(FileReaderTest, CorruptZstdIsCorruption) {
  TempDir dir;
  std::string data;
  for (int idx = 0; idx < 5000; ++idx) data += std::to_string(idx * 7919 % 10007) + ",";
  std::string compressed = Compress(data);
  std::string corrupt = compressed;
  for (std::size_t byte_idx = 12; byte_idx < corrupt.size() - 4; byte_idx += 7) {
    corrupt[byte_idx] = static_cast<char>(corrupt[byte_idx] ^ 0x5A);
  }
  EXPECT_THAT(ReadFile(dir.File("corrupt.zst", corrupt)),
              StatusIs(StatusCode::kCorruption, HasSubstr("corrupt.zst")));
  const std::string truncated = compressed.substr(0, compressed.size() / 2);
  EXPECT_THAT(ReadFile(dir.File("truncated.zst", truncated)),
              StatusIs(StatusCode::kCorruption, HasSubstr("truncated")));
  EXPECT_THAT(ReadFile(dir.File("plain.zst", "{\"text\": \"not compressed\"}\n")),
              StatusIs(StatusCode::kCorruption, HasSubstr("not a zstd stream")));
}

TEST(FileReaderTest, LineReaderHandlesCrlfBomAndMissingFinalNewline) {
  TempDir dir;
  const std::string path = dir.File("lines.txt",
                                    "\xEF\xBB\xBF"
                                    "one\r\ntwo\n\nthree");
  EXPECT_THAT(ReadLines(path), ElementsAre("one", "two", "", "three"));
}

TEST(FileReaderTest, LineReaderLimitsLineLength) {
  TempDir dir;
  const std::string path = dir.File("long.txt", "short\n" + std::string(5000, 'x') + "\nend\n");
  StatusOr<std::unique_ptr<LineReader>> reader = LineReader::Open(path, {.max_line_bytes = 1000});
  ASSERT_THAT(reader, IsOk());
  std::string line;
  EXPECT_THAT((*reader)->Next(&line), IsOkAndHolds(true));
  EXPECT_THAT((*reader)->Next(&line),
              StatusIs(StatusCode::kResourceExhausted, HasSubstr("line 2")));
}

// ---- turns_jsonl -------------------------------------------------------------------------

TEST(TurnsJsonlTest, ParsesEveryFieldAndDefaults) {
  const std::string text =
      "{\"text\": \"I moved to Lisbon.\", \"role\": \"assistant\", \"speaker\": \"Ana\", "
      "\"session_id\": \"s1\", \"event_time\": \"2024-05-01T10:00:00Z\", "
      "\"metadata\": {\"z\": 1, \"a\": [true]}}\n"
      "\n"
      "   \n"
      "{\"text\": \"Hello\"}\n";
  StatusOr<ParsedTurns> parsed = ParseTurnsJsonl(text);
  ASSERT_THAT(parsed, IsOk());
  ASSERT_THAT(parsed->turns, SizeIs(2));
  const Turn& first = parsed->turns[0];
  EXPECT_EQ(first.text, "I moved to Lisbon.");
  EXPECT_EQ(first.role, Role::kAssistant);
  EXPECT_EQ(first.speaker, "Ana");
  EXPECT_EQ(first.session_id, "s1");
  ASSERT_TRUE(first.event_time.has_value());
  EXPECT_EQ(FormatTimestamp(*first.event_time), "2024-05-01T10:00:00Z");
  EXPECT_EQ(first.metadata_json, "{\"a\":[true],\"z\":1}");  // canonical: sorted keys
  const Turn& second = parsed->turns[1];
  EXPECT_EQ(second.role, Role::kUser);
  EXPECT_EQ(second.speaker, "");
  EXPECT_FALSE(second.event_time.has_value());
  EXPECT_EQ(second.metadata_json, "{}");
  EXPECT_THAT(parsed->line_numbers, ElementsAre(1, 4));
}

TEST(TurnsJsonlTest, NullMeansNotGiven) {
  StatusOr<Turn> turn = ParseTurnJson(
      R"({"text": "x", "role": null, "speaker": null, "event_time": null, "metadata": null})");
  ASSERT_THAT(turn, IsOk());
  EXPECT_EQ(turn->role, Role::kUser);
  EXPECT_FALSE(turn->event_time.has_value());
  EXPECT_EQ(turn->metadata_json, "{}");
}

// A two-line file whose line 3 (after a blank line) is `bad_line`.
StatusOr<ParsedTurns> ParseWithBadLine3(const std::string& bad_line,
                                        const TurnsJsonlOptions& options = {}) {
  TurnsJsonlOptions named = options;
  named.source_name = "turns.jsonl";
  return ParseTurnsJsonl("{\"text\": \"fine\"}\n\n" + bad_line + "\n{\"text\": \"also fine\"}\n",
                         named);
}

TEST(TurnsJsonlTest, ErrorsNameTheLineAndTheProblem) {
  struct Case {
    std::string line;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{\"text\": \"unterminated}", "turns.jsonl line 3: invalid JSON"},
      {"[1, 2]", "turns.jsonl line 3: expected a JSON object (a turn), got an array"},
      {"{\"role\": \"user\"}", "turns.jsonl line 3: \"text\" is missing"},
      {"{\"text\": 42}", "turns.jsonl line 3: \"text\" must be a non-empty string"},
      {"{\"text\": \"\"}", "turns.jsonl line 3: \"text\" must be a non-empty string"},
      {"{\"text\": \"  \\n \"}", "turns.jsonl line 3: \"text\" must be a non-empty string"},
      {"{\"text\": \"x\", \"role\": \"bot\"}",
       "turns.jsonl line 3: \"role\" must be one of user, assistant, system, tool; got \"bot\""},
      {"{\"text\": \"x\", \"event_time\": \"yesterday\"}",
       "turns.jsonl line 3: bad \"event_time\""},
      {"{\"text\": \"x\", \"event_time\": 1700000000}",
       "turns.jsonl line 3: \"event_time\" must be an ISO-8601 string, got a number"},
      {"{\"text\": \"x\", \"metadata\": \"{}\"}",
       "turns.jsonl line 3: \"metadata\" must be a JSON object, got a string"},
      {"{\"text\": \"x\", \"speker\": \"Ana\"}", "turns.jsonl line 3: unknown field \"speker\""},
      {"{\"text\": \"x\", \"speaker\": 7}",
       "turns.jsonl line 3: \"speaker\" must be a string, got a number"},
      {"{\"text\": \"caf\xC3\"}", "turns.jsonl line 3: invalid UTF-8 at byte 14"},
      {"{\"text\": \"first\", \"text\": \"second\"}",
       "turns.jsonl line 3: invalid JSON: the key \"text\" appears twice in one object"},
      {"{\"text\": \"x\", \"metadata\": {\"a\": 1, \"b\": {\"a\": 2}, \"a\": 3}}",
       "turns.jsonl line 3: invalid JSON: the key \"a\" appears twice in one object"},
  };
  for (const Case& test_case : cases) {
    SCOPED_TRACE(test_case.line);
    EXPECT_THAT(ParseWithBadLine3(test_case.line),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr(test_case.message)));
  }
}

TEST(TurnsJsonlTest, DeepNestingIsRejectedNotParsed) {
  const std::string deep = "{\"text\": \"x\", \"metadata\": {\"a\": " + std::string(10000, '[') +
                           std::string(10000, ']') + "}}";
  EXPECT_THAT(ParseWithBadLine3(deep),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("line 3: JSON nested deeper")));
  // Brackets inside strings do not count.
  EXPECT_THAT(ParseTurnJson("{\"text\": \"" + std::string(100, '[') + "\"}"), IsOk());
}

// Metadata integers keep every digit from -2^63 to 2^64 - 1 (nlohmann reads them as int64 or
// uint64, and MetadataToJson gives them back so); an integer beyond 64 bits, which the parser
// would read as a rounded double, is refused naming it.
TEST(TurnsJsonlTest, MetadataIntegersAreExactOrRefused) {
  const std::string exact =
      R"({"big":18446744073709551615,"min":-9223372036854775808,"n":9007199254740993})";
  StatusOr<Turn> turn = ParseTurnJson(R"({"text": "x", "metadata": )" + exact + "}");
  ASSERT_THAT(turn, IsOk());
  EXPECT_EQ(turn->metadata_json, exact);
  EXPECT_EQ(Dump(MetadataToJson(turn->metadata_json)), exact);
  EXPECT_EQ(MetadataToJson(turn->metadata_json)["big"].get<std::uint64_t>(), 18446744073709551615u);

  EXPECT_THAT(ParseWithBadLine3(R"({"text": "x", "metadata": {"n": 18446744073709551616}})"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("turns.jsonl line 3: \"metadata\" holds the integer "
                                 "18446744073709551616, outside the 64-bit range")));
  EXPECT_THAT(ParseTurnJson(R"({"text": "x", "metadata": {"a": [-9223372036854775809]}})"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("-9223372036854775809")));
  // As a string or a float it is the user's choice to keep the text or a double.
  EXPECT_THAT(ParseTurnJson(R"({"text": "x", "metadata": {"n": "18446744073709551616"}})"), IsOk());
  EXPECT_THAT(ParseTurnJson(R"({"text": "x", "metadata": {"n": 1.8446744073709552e19}})"), IsOk());
}

TEST(TurnsJsonlTest, SizeLimits) {
  TurnsJsonlOptions options;
  options.max_text_bytes = 10;
  options.max_metadata_bytes = 12;
  EXPECT_THAT(ParseTurnJson("{\"text\": \"0123456789\"}", options), IsOk());
  EXPECT_THAT(ParseTurnJson("{\"text\": \"0123456789A\"}", options),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("\"text\" is 11 bytes, more than the limit of 10")));
  EXPECT_THAT(ParseTurnJson("{\"text\": \"x\", \"metadata\": {\"key\": \"value\"}}", options),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("\"metadata\" is 15 bytes")));
}

TEST(TurnsJsonlTest, ReadsCompressedFileAndNamesIt) {
  TempDir dir;
  const std::string good =
      dir.File("turns.jsonl.zst", Compress("{\"text\": \"a\"}\r\n{\"text\": \"b\"}"));
  StatusOr<ParsedTurns> parsed = ReadTurnsJsonl(good);
  ASSERT_THAT(parsed, IsOk());
  ASSERT_THAT(parsed->turns, SizeIs(2));
  EXPECT_EQ(parsed->turns[1].text, "b");
  const std::string bad = dir.File("bad.jsonl", "{\"text\": \"a\"}\n{\"text\": \"\"}\n");
  EXPECT_THAT(ReadTurnsJsonl(bad),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("bad.jsonl line 2: \"text\" must be a non-empty string")));
}

// ---- locomo ------------------------------------------------------------------------------

TEST(LocomoTest, ParsesSessionDateTimes) {
  const auto iso = [](std::string_view text) -> std::string {
    StatusOr<Timestamp> time = ParseLocomoDateTime(text);
    return time.ok() ? FormatTimestamp(*time) : time.status().ToString();
  };
  EXPECT_EQ(iso("1:56 pm on 8 May, 2023"), "2023-05-08T13:56:00Z");
  EXPECT_EQ(iso("10:04 am on 19 October, 2023"), "2023-10-19T10:04:00Z");
  EXPECT_EQ(iso("12:00 am on 1 January, 2024"), "2024-01-01T00:00:00Z");
  EXPECT_EQ(iso("12:30 pm on 1 January, 2024"), "2024-01-01T12:30:00Z");
  EXPECT_EQ(iso("11:59 pm on 31 December, 2023"), "2023-12-31T23:59:00Z");
  EXPECT_EQ(iso("9:05 AM on 2 Feb, 2022"), "2022-02-02T09:05:00Z");
  for (const char* bad :
       {"", "13:00 pm on 8 May, 2023", "0:30 am on 8 May, 2023", "1:56 on 8 May, 2023",
        "1:56 pm on 31 June, 2023", "1:56 pm on 8 Mai, 2023", "1:56 pm on 8 May, 2023 extra",
        "2023-05-08T13:56:00Z"}) {
    EXPECT_THAT(ParseLocomoDateTime(bad),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("bad LoCoMo date")))
        << bad;
  }
}

TEST(LocomoTest, CleansEvidence) {
  EXPECT_THAT(CleanLocomoEvidence({"D8:6; D9:17"}), ElementsAre("D8:6", "D9:17"));
  EXPECT_THAT(CleanLocomoEvidence({"D1:18", "D", "D1:20"}), ElementsAre("D1:18", "D1:20"));
  EXPECT_THAT(CleanLocomoEvidence({"D1:14", "D:11:26", "D20:21,D20:21", "d1:2", "D3:"}),
              ElementsAre("D1:14", "D20:21"));
}

TEST(LocomoTest, SyntheticConversation) {
  const std::string json = R"([{
    "sample_id": "conv-x",
    "conversation": {
      "speaker_a": "Ann", "speaker_b": "Bob",
      "session_10_date_time": "9:00 am on 10 June, 2023",
      "session_10": [{"speaker": "Bob", "dia_id": "D10:1", "text": "Later."}],
      "session_2_date_time": "1:00 pm on 2 June, 2023",
      "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Look!",
                     "blip_caption": "a photo of a cat", "img_url": ["x"]},
                    {"speaker": "Bob", "dia_id": "D2:2", "text": "Nice."},
                    {"speaker": "Bob", "dia_id": "D2:3", "text": " "}],
      "session_3_date_time": "1:00 pm on 3 June, 2023"
    },
    "qa": [{"question": "Q?", "answer": 2022, "evidence": ["D2:1; D2:2"], "category": 2},
           {"question": "R?", "adversarial_answer": "no", "evidence": [], "category": 5}]
  }])";
  StatusOr<std::vector<LocomoConversation>> parsed = ParseLocomo(json, "x.json");
  ASSERT_THAT(parsed, IsOk());
  ASSERT_THAT(*parsed, SizeIs(1));
  const LocomoConversation& conversation = (*parsed)[0];
  EXPECT_EQ(conversation.scope.ToString(), "world:locomo-conv-x");
  EXPECT_THAT(conversation.speakers, ElementsAre("Ann", "Bob"));
  EXPECT_EQ(conversation.skipped_blank_turns, 1u);
  ASSERT_THAT(conversation.turns, SizeIs(3));
  EXPECT_EQ(conversation.turns[0].text, "Look! [shares an image: a photo of a cat]");
  EXPECT_EQ(conversation.turns[0].session_id, "session_2");
  EXPECT_EQ(conversation.turns[0].metadata_json, R"({"dia_id":"D2:1","session":2,"turn_index":1})");
  EXPECT_EQ(FormatTimestamp(*conversation.turns[1].event_time), "2023-06-02T13:00:00Z");
  EXPECT_EQ(conversation.turns[2].text, "Later.");  // session 10 after session 2
  EXPECT_EQ(FormatTimestamp(*conversation.turns[2].event_time), "2023-06-10T09:00:00Z");
  ASSERT_THAT(conversation.questions, SizeIs(2));
  EXPECT_EQ(conversation.questions[0].answer, "2022");
  EXPECT_THAT(conversation.questions[0].evidence, ElementsAre("D2:1", "D2:2"));
  EXPECT_EQ(conversation.questions[1].answer, "");
  EXPECT_EQ(conversation.questions[1].adversarial_answer, "no");
  EXPECT_EQ(conversation.questions[1].category, 5);
}

TEST(LocomoTest, ErrorsNameTheConversationAndField) {
  EXPECT_THAT(
      ParseLocomo(R"([{"sample_id": "c1", "conversation": {"session_1": [{"speaker": "A"}]}}])",
                  "f.json"),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("f.json: conversation 0 (c1): session_1 turn 1: \"text\" is missing")));
  EXPECT_THAT(ParseLocomo(R"([{"sample_id": "c/1", "conversation": {}}])", "f.json"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("cannot name a scope")));
  EXPECT_THAT(ParseLocomo("[{", "f.json"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("f.json: invalid JSON")));
  EXPECT_THAT(
      ParseLocomo(R"([{"sample_id": "c1", "sample_id": "c2", "conversation": {}}])", "f.json"),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("f.json: invalid JSON: the key \"sample_id\" appears twice")));
  const std::string huge_id(1 << 20, 'a');
  EXPECT_THAT(ParseLocomo("[{\"sample_id\": \"" + huge_id + "\", \"conversation\": {}}]", "f.json"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("at most 200")));
}

TEST(LocomoTest, ImportsTheDevelopmentFile) {
  const std::string path = ::engram::testing::BenchDataFile("locomo_dev.json");
  ENGRAM_SKIP_WITHOUT_BENCH_FILE(path);
  StatusOr<std::vector<LocomoConversation>> parsed = ReadLocomo(path);
  ASSERT_THAT(parsed, IsOk());
  ASSERT_THAT(*parsed, SizeIs(5));
  std::vector<std::string> ids;
  std::vector<std::size_t> turn_counts;
  std::vector<std::size_t> question_counts;
  for (const LocomoConversation& conversation : *parsed) {
    ids.push_back(conversation.scope.ToString());
    turn_counts.push_back(conversation.turns.size());
    question_counts.push_back(conversation.questions.size());
  }
  EXPECT_THAT(ids,
              ElementsAre("world:locomo-conv-26", "world:locomo-conv-30", "world:locomo-conv-41",
                          "world:locomo-conv-42", "world:locomo-conv-43"));
  EXPECT_THAT(turn_counts, ElementsAre(419, 369, 663, 629, 680));
  EXPECT_THAT(question_counts, ElementsAre(199, 105, 193, 260, 242));

  const LocomoConversation& conv26 = (*parsed)[0];
  EXPECT_THAT(conv26.speakers, ElementsAre("Caroline", "Melanie"));
  const Turn& third = conv26.turns[2];
  EXPECT_EQ(third.speaker, "Caroline");
  EXPECT_EQ(third.text, "I went to a LGBTQ support group yesterday and it was so powerful.");
  EXPECT_EQ(third.session_id, "session_1");
  EXPECT_EQ(FormatTimestamp(*third.event_time), "2023-05-08T13:56:00Z");
  EXPECT_EQ(third.metadata_json, R"({"dia_id":"D1:3","session":1,"turn_index":3})");
  EXPECT_THAT(conv26.turns[4].text,
              HasSubstr("support. [shares an image: a photo of a dog walking past a wall with a "
                        "painting of a woman]"));
  // Every turn's dia_id is D<session>:<turn_index>.
  for (const LocomoConversation& conversation : *parsed) {
    for (const Turn& turn : conversation.turns) {
      ASSERT_THAT(turn.metadata_json, HasSubstr("\"dia_id\":\"D"));
    }
  }
  EXPECT_EQ(conv26.questions[0].question, "When did Caroline go to the LGBTQ support group?");
  EXPECT_THAT(conv26.questions[0].evidence, ElementsAre("D1:3"));
  EXPECT_EQ(conv26.questions[37].question, "What did Melanie paint recently?");
  EXPECT_THAT(conv26.questions[37].evidence, ElementsAre("D8:6", "D9:17"));
  EXPECT_THAT((*parsed)[3].questions[88].evidence, ElementsAre("D1:18", "D1:20"));
  EXPECT_THAT((*parsed)[4].questions[18].evidence,
              ElementsAre("D1:14", "D2:7", "D4:7", "D5:15", "D20:21", "D26:36"));
  int integer_answers = 0;
  for (const LocomoConversation& conversation : *parsed) {
    for (const LocomoQuestion& question : conversation.questions) {
      if (question.answer == "2022" || question.answer == "2" || question.answer == "3") {
        ++integer_answers;
      }
    }
  }
  EXPECT_GE(integer_answers, 6);
}

// ---- longmemeval -------------------------------------------------------------------------

TEST(LongMemEvalTest, ParsesDates) {
  EXPECT_THAT(ParseLongMemEvalDate("2023/05/20 (Sat) 02:21"),
              IsOkAndHolds(*ParseTimestamp("2023-05-20T02:21:00Z")));
  EXPECT_THAT(ParseLongMemEvalDate("2023/12/21 21:31"),
              IsOkAndHolds(*ParseTimestamp("2023-12-21T21:31:00Z")));
  for (const char* bad : {"", "2023-05-20 02:21", "2023/13/20 (Sat) 02:21", "2023/05/20 (Sat 02:21",
                          "2023/05/20 (Sat) 25:00", "2023/05/20 (Sat)"}) {
    EXPECT_THAT(ParseLongMemEvalDate(bad),
                StatusIs(StatusCode::kInvalidArgument, HasSubstr("bad LongMemEval date")))
        << bad;
  }
}

constexpr const char* kLongMemEvalSample = R"([
  {"question_id": "q1_abs", "question_type": "single-session-user", "question": "What?",
   "answer": 3, "question_date": "2023/06/01 (Thu) 10:00", "answer_session_ids": ["s2"],
   "haystack_session_ids": ["s1", "s2"],
   "haystack_dates": ["2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 09:00"],
   "haystack_sessions": [
     [{"role": "user", "content": "Hi", "has_answer": false},
      {"role": "assistant", "content": "\u200b"},
      {"role": "assistant", "content": "Hello"}],
     [{"role": "user", "content": "I have 3 cats.", "has_answer": true}]]}
])";

TEST(LongMemEvalTest, SyntheticQuestion) {
  StatusOr<std::vector<LongMemEvalInstance>> parsed =
      ParseLongMemEval(kLongMemEvalSample, "lme.json");
  ASSERT_THAT(parsed, IsOk());
  ASSERT_THAT(*parsed, SizeIs(1));
  const LongMemEvalInstance& instance = (*parsed)[0];
  EXPECT_EQ(instance.scope.ToString(), "world:lme-q1_abs");
  EXPECT_TRUE(instance.question.abstention);
  EXPECT_EQ(instance.question.answer, "3");
  EXPECT_EQ(FormatTimestamp(instance.question.question_date), "2023-06-01T10:00:00Z");
  EXPECT_THAT(instance.question.answer_session_ids, ElementsAre("s2"));
  ASSERT_THAT(instance.turns, SizeIs(3));
  EXPECT_EQ(instance.turns[1].role, Role::kAssistant);
  EXPECT_EQ(instance.turns[1].session_id, "s1");
  EXPECT_EQ(instance.turns[0].metadata_json, R"({"session_id":"s1","turn_index":1})");
  EXPECT_EQ(instance.turns[2].metadata_json,
            R"({"has_answer":true,"session_id":"s2","turn_index":1})");
  EXPECT_EQ(FormatTimestamp(*instance.turns[2].event_time), "2023-05-21T09:00:00Z");
  EXPECT_EQ(instance.answer_turns, 1u);
  EXPECT_EQ(instance.skipped_blank_turns, 1u);
  EXPECT_EQ(instance.turns[1].metadata_json, R"({"session_id":"s1","turn_index":3})");
}

TEST(LongMemEvalTest, ErrorsNameTheQuestion) {
  std::string mismatched = kLongMemEvalSample;
  mismatched.replace(mismatched.find("\"s1\", \"s2\""), 10, "\"s1\"");
  EXPECT_THAT(ParseLongMemEval(mismatched, "lme.json"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("lme.json: question 1 (id q1_abs): haystack_sessions, "
                                 "haystack_session_ids and haystack_dates differ in length")));
  EXPECT_THAT(ParseLongMemEval("{}", "lme.json"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("expected a JSON array")));
  EXPECT_THAT(ParseLongMemEval("[{\"question_id\": 1}]", "lme.json"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("question 1")));
  EXPECT_THAT(ParseLongMemEval("[1]", "lme.json"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("expected a question object")));
  EXPECT_THAT(ParseLongMemEval("[{\"a\": ", "lme.json"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("invalid JSON")));
  std::string repeated = kLongMemEvalSample;
  repeated.replace(repeated.find("\"question_id\""), 0, "\"answer\": \"x\", ");
  EXPECT_THAT(ParseLongMemEval(repeated, "lme.json"),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("lme.json: question 1: invalid JSON: the key \"answer\" "
                                 "appears twice in one object")));
  // A visitor's error stops the parse and is returned unchanged.
  EXPECT_THAT(ForEachLongMemEval(kLongMemEvalSample, "lme.json",
                                 [](LongMemEvalInstance&&) { return Status::Unavailable("stop"); }),
              StatusIs(StatusCode::kUnavailable, "stop"));
}

TEST(LongMemEvalTest, ImportsTheDevelopmentFile) {
  const std::string path = ::engram::testing::BenchDataFile("longmemeval_s_dev60.json.zst");
  ENGRAM_SKIP_WITHOUT_BENCH_FILE(path);
  StatusOr<std::vector<LongMemEvalInstance>> parsed = ReadLongMemEval(path);
  ASSERT_THAT(parsed, IsOk());
  ASSERT_THAT(*parsed, SizeIs(60));
  std::map<std::string, int> per_type;
  std::size_t turns = 0;
  int abstentions = 0;
  for (const LongMemEvalInstance& instance : *parsed) {
    ++per_type[instance.question.question_type];
    turns += instance.turns.size();
    abstentions += instance.question.abstention ? 1 : 0;
    ASSERT_EQ(instance.haystack_dates.size(), instance.haystack_session_ids.size());
  }
  EXPECT_THAT(per_type, SizeIs(6));
  for (const auto& [type, count] : per_type) EXPECT_EQ(count, 10) << type;
  EXPECT_EQ(turns, 29803u - 8);  // 8 assistant turns are a lone U+200B
  std::size_t skipped = 0;
  for (const LongMemEvalInstance& instance : *parsed) skipped += instance.skipped_blank_turns;
  EXPECT_EQ(skipped, 8u);
  EXPECT_EQ(abstentions, 2);
  const LongMemEvalInstance& first = (*parsed)[0];
  EXPECT_EQ(first.scope.ToString(), "world:lme-01493427");
  EXPECT_EQ(FormatTimestamp(first.question.question_date), "2023-12-21T21:31:00Z");
  EXPECT_EQ(FormatTimestamp(first.haystack_dates[0]), "2023-08-11T15:58:00Z");
  EXPECT_EQ(first.turns.size(), 487u);
  EXPECT_EQ(first.turns[0].session_id, "answer_a7b44747_1");
  EXPECT_EQ(first.answer_turns, 2u);
  EXPECT_THAT(first.question.answer_session_ids,
              ElementsAre("answer_a7b44747_1", "answer_a7b44747_2"));
}

// ---- api_json ----------------------------------------------------------------------------

ReadResult SmallReadResult() {
  ReadResult result;
  result.query = "Where does Maya live?";
  result.policy = "balanced";
  result.context = "[2024-05-01] Ana: My sister Maya lives in Porto.";
  result.answer_instructions = "Answer from the context.";
  RecallItem item;
  item.id = "0123456789abcdef0123456789abcdef";
  item.kind = NodeKind::kTurn;
  item.scope = "user:ana";
  item.text = "My sister Maya lives in Porto.";
  item.speaker = "Ana";
  item.session_id = "s1";
  item.sequence = 3;
  item.event_time = Timestamp::FromSeconds(1714557600);
  item.metadata_json = R"({"b":1,"a":{"c":"d"}})";
  item.score = 0.5;
  item.fused_score = 0.25;
  item.routes.push_back({"bm25", 1, 2.5, "bm25: maya(tf 1, idf 1.5)"});
  item.adjustments.push_back({"person", 1.0, "asked about Maya"});
  item.provenance = {"0123456789abcdef0123456789abcdef"};
  item.tokens = 9;
  result.items.push_back(item);
  result.diagnostics.routes.push_back({"bm25", 4, 1.0, ""});
  result.diagnostics.fused_candidates = 4;
  result.diagnostics.ranker = "learned v1 (300 trees, sha256:0123456789ab)";
  result.diagnostics.filtered_out = 1;
  result.diagnostics.filtered_by["known_at"] = 1;
  result.diagnostics.filtered.push_back(
      {"fedcba9876543210fedcba9876543210", "known_at",
       "ingested 2024-06-01T00:00:00Z, after known_at 2024-05-15T00:00:00Z"});
  result.diagnostics.token_budget = 2000;
  result.diagnostics.context_tokens = 9;
  result.diagnostics.timings.push_back({"route:bm25", 0.125});
  result.diagnostics.unpacked.push_back({"00112233445566778899aabbccddeeff", 2, "floor"});
  result.diagnostics.warnings.push_back("word-vector matches off: glove-100d.bin is missing");
  result.latency_ms = 1.5;
  return result;
}

TEST(ApiJsonTest, ReadResultGolden) {
  EXPECT_EQ(
      Dump(ToJson(SmallReadResult())),
      R"({"query":"Where does Maya live?","policy":"balanced",)"
      R"("context":"[2024-05-01] Ana: My sister Maya lives in Porto.",)"
      R"("answer_instructions":"Answer from the context.",)"
      R"("items":[{"id":"0123456789abcdef0123456789abcdef","kind":"turn","scope":"user:ana",)"
      R"("sequence":3,"status":"active","role":"user","speaker":"Ana","session_id":"s1",)"
      R"("event_time":"2024-05-01T10:00:00Z","text":"My sister Maya lives in Porto.",)"
      R"("metadata":{"b":1,"a":{"c":"d"}},"score":0.5,"fused_score":0.25,)"
      R"j("routes":[{"route":"bm25","rank":1,"score":2.5,"explanation":"bm25: maya(tf 1, idf 1.5)"}],)j"
      R"("adjustments":[{"name":"person","factor":1.0,"bonus":0.0,"detail":"asked about Maya"}],)"
      R"("provenance":["0123456789abcdef0123456789abcdef"],"tokens":9,)"
      R"("superseded_by":null,"conflicts":[]}],)"
      R"("diagnostics":{"frame":"","plan":"",)"
      R"("routes":[{"route":"bm25","candidates":4,"weight":1.0,"error":""}],)"
      R"("fused_candidates":4,"neighbours_added":0,"bridged":0,)"
      R"("superseded":0,"successors_added":0,"conflicted":0,)"
      R"j("ranker":"learned v1 (300 trees, sha256:0123456789ab)","filtered_out":1,)j"
      R"("filtered_by":{"known_at":1},"filtered":[{"id":"fedcba9876543210fedcba9876543210",)"
      R"("filter":"known_at",)"
      R"("reason":"ingested 2024-06-01T00:00:00Z, after known_at 2024-05-15T00:00:00Z"}],)"
      R"("dropped_by_budget":0,"deduplicated":0,"token_budget":2000,)"
      R"("context_tokens":9,"timings":[{"stage":"route:bm25","ms":0.125}],"chat":"",)"
      R"("unpacked":[{"id":"00112233445566778899aabbccddeeff","rank":2,"reason":"floor"}],)"
      R"("warnings":["word-vector matches off: glove-100d.bin is missing"]},)"
      R"("latency_ms":1.5,"mode":"evidence","chat":[],)"
      R"("sufficiency":{"verdict":"sufficient","reasons":[],"term_share":1.0,)"
      R"("best_item_share":1.0}})");
}

TEST(ApiJsonTest, DiagnosticsAlwaysListTheirWarnings) {
  // A recall that was not degraded still says so: an empty list, not a missing field.
  const Json json = ToJson(Diagnostics{});
  ASSERT_TRUE(json.contains("warnings"));
  EXPECT_EQ(Dump(json["warnings"]), "[]");
  Diagnostics degraded;
  degraded.warnings = {"first", "second"};
  EXPECT_EQ(Dump(ToJson(degraded)["warnings"]), R"(["first","second"])");
  // A run's context lists those of the recall behind its recalled section.
  ContextResult context;
  EXPECT_EQ(Dump(ToJson(context)["warnings"]), "[]");
  context.recalled.diagnostics = degraded;
  EXPECT_EQ(Dump(ToJson(context)["warnings"]), R"(["first","second"])");
}

// Without explanations (REST and MCP without "explain"): the items keep their ranking and
// packing fields but not their routes and adjustments; the diagnostics only their warnings.
TEST(ApiJsonTest, WithoutExplanationsKeepsTheItemsAndWarnings) {
  const Json full = ToJson(SmallReadResult());
  const Json json = ToJsonWithoutExplanations(SmallReadResult());
  EXPECT_EQ(Dump(json["diagnostics"]),
            R"({"warnings":["word-vector matches off: glove-100d.bin is missing"]})");
  ASSERT_EQ(json["items"].size(), 1u);
  EXPECT_FALSE(json["items"][0].contains("routes"));
  EXPECT_FALSE(json["items"][0].contains("adjustments"));
  Json expected_item = full["items"][0];
  expected_item.erase("routes");
  expected_item.erase("adjustments");
  EXPECT_EQ(json["items"][0], expected_item);
  for (const char* field :
       {"query", "policy", "context", "answer_instructions", "latency_ms", "mode", "chat"}) {
    EXPECT_EQ(json[field], full[field]) << field;
  }
  // The items of a run's context ("recalled") are trimmed the same way.
  Json items = full["items"];
  DropExplanations(items);
  EXPECT_EQ(items, json["items"]);
}

TEST(ApiJsonTest, IsDeterministicAndPrettyPrints) {
  const std::string first = Dump(ToJson(SmallReadResult()), true);
  EXPECT_EQ(first, Dump(ToJson(SmallReadResult()), true));
  EXPECT_THAT(first, HasSubstr("{\n  \"query\": \"Where does Maya live?\",\n"));
}

TEST(ApiJsonTest, MemoryHistoryAndErrors) {
  Memory memory;
  memory.id = "ab";
  memory.scope = "user:ana";
  memory.text = "x";
  memory.sequence = 1;
  memory.metadata_json = "not json";
  memory.valid_from = Timestamp::FromSeconds(0);
  memory.ingested_at = Timestamp::FromSeconds(60);
  memory.updated_at = Timestamp::FromSeconds(60);
  memory.provenance = {"ab"};
  EXPECT_EQ(Dump(ToJson(memory)),
            R"({"id":"ab","kind":"turn","scope":"user:ana","sequence":1,"status":"active",)"
            R"("role":"user","speaker":"","session_id":"","event_time":null,"text":"x",)"
            R"("metadata":"not json","valid_from":"1970-01-01T00:00:00Z","valid_to":null,)"
            R"("ingested_at":"1970-01-01T00:01:00Z","updated_at":"1970-01-01T00:01:00Z",)"
            R"("provenance":["ab"]})");
  HistoryEvent event{.at = Timestamp::FromSeconds(60),
                     .action = "retired",
                     .status = NodeStatus::kRetired,
                     .valid_to = Timestamp::FromSeconds(60),
                     .related_id = "",
                     .detail = "user asked"};
  EXPECT_EQ(Dump(ToJson(event)),
            R"({"at":"1970-01-01T00:01:00Z","action":"retired","status":"retired",)"
            R"("valid_to":"1970-01-01T00:01:00Z","related_id":"","detail":"user asked"})");
  EXPECT_EQ(Dump(ErrorToJson(Status::NotFound("no scope \"user:bob\""))),
            R"({"error":{"code":"NOT_FOUND","message":"no scope \"user:bob\""}})");
  EXPECT_EQ(Dump(ToJson(EraseResult{.scopes = 1, .nodes = 2, .edges = 3})),
            R"({"scopes":1,"nodes":2,"edges":3})");
  EXPECT_EQ(Dump(ToJson(ScopeInfo{.scope = "user:ana", .memories = 4, .last_sequence = 4})),
            R"({"scope":"user:ana","memories":4,"last_sequence":4})");
  EXPECT_EQ(Dump(ToJson(MergeProposal{
                .id = "e", .a = "x", .b = "y", .status = "pending", .reason = "same name"})),
            R"({"id":"e","a":"x","b":"y","status":"pending","reason":"same name"})");
  EXPECT_EQ(
      Dump(ToJson(RememberResult{.ids = {"a", "b"}, .first_sequence = 1, .last_sequence = 2})),
      R"({"ids":["a","b"],"first_sequence":1,"last_sequence":2,"already_stored":[]})");
  EXPECT_EQ(
      Dump(ToJson(RebuildReport{
          .scopes = 1, .documents = 2, .terms = 3, .seconds = 0.5, .matched_live_index = true})),
      R"({"scopes":1,"documents":2,"terms":3,"seconds":0.5,"matched_live_index":true})");
}

TEST(ApiJsonTest, PackingNamesParseAndOthersAreRejectedNamingTheChoices) {
  EXPECT_EQ(ParsePacking("value").value(), true);
  EXPECT_EQ(ParsePacking("rank").value(), false);
  const StatusOr<bool> unknown = ParsePacking("Value");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(), "unknown packing \"Value\" (expected one of value, rank)");
  EXPECT_FALSE(ParsePacking("").ok());
}

TEST(ApiJsonTest, MetadataThatIsNotAnObjectStaysAString) {
  EXPECT_EQ(MetadataToJson(R"({"a":1})"), Json::parse(R"({"a":1})"));
  EXPECT_EQ(MetadataToJson("[1]"), Json("[1]"));
  EXPECT_EQ(MetadataToJson(""), Json::object());
  const std::string deep = "{\"a\":" + std::string(5000, '[') + std::string(5000, ']') + "}";
  EXPECT_EQ(MetadataToJson(deep), Json(deep));
}

TEST(ApiJsonTest, StoredJsonReadForFieldsIsAnObjectWithStringFields) {
  const Json fields = ParseObject(R"({"name":"Maya","mentions":3,"kind":null})");
  EXPECT_EQ(StringField(fields, "name"), "Maya");
  EXPECT_EQ(StringField(fields, "mentions"), "");  // not a string
  EXPECT_EQ(StringField(fields, "kind"), "");
  EXPECT_EQ(StringField(fields, "absent"), "");
  EXPECT_EQ(ParseObject("[1,2]"), Json::object());
  EXPECT_EQ(ParseObject("not json"), Json::object());
  EXPECT_EQ(ParseObject(""), Json::object());
  EXPECT_EQ(StringField(ParseObject("\"text\""), "text"), "");
}

TEST(ApiJsonTest, InvalidUtf8AndNonFiniteNumbersNeverThrow) {
  ReadResult result;
  result.query = "caf\xC3";
  result.latency_ms = std::numeric_limits<double>::quiet_NaN();
  const std::string json = Dump(ToJson(result));
  EXPECT_THAT(json, HasSubstr("\"query\":\"caf\xEF\xBF\xBD\""));
  EXPECT_THAT(json, HasSubstr("\"latency_ms\":null"));
}

}  // namespace
}  // namespace engram::io
