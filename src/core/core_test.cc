// Tests for engram_core: Status, timestamps, scopes, UTF-8, SHA-256, ids, token counts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/civil_date.h"
#include "core/ids.h"
#include "core/json_depth.h"
#include "core/sha256.h"
#include "core/utf8.h"
#include "engram/clock.h"
#include "engram/read_result.h"
#include "engram/testing/status_matchers.h"
#include "engram/types.h"

namespace engram {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::IsOkAndHolds;
using ::engram::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

StatusOr<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd");
  return x / 2;
}

StatusOr<int> Quarter(int x) {
  ASSIGN_OR_RETURN(int half, Half(x));
  ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

TEST(StatusTest, MacrosPropagateErrors) {
  EXPECT_THAT(Quarter(8), IsOkAndHolds(2));
  EXPECT_THAT(Quarter(6), StatusIs(StatusCode::kInvalidArgument, HasSubstr("odd")));
  auto check = [](int x) -> Status {
    RETURN_IF_ERROR(Half(x));
    return Status::Ok();
  };
  EXPECT_THAT(check(4), IsOk());
  EXPECT_THAT(check(3), StatusIs(StatusCode::kInvalidArgument));
}

TEST(StatusTest, ToStringAndContext) {
  EXPECT_EQ(Status::NotFound("x").ToString(), "NOT_FOUND: x");
  EXPECT_EQ(Status::NotFound("x").WithContext("open").message(), "open: x");
  EXPECT_EQ(Status::Ok().ToString(), "OK");
}

TEST(TimestampTest, ParsesIsoForms) {
  EXPECT_THAT(ParseTimestamp("1970-01-01"), IsOkAndHolds(Timestamp{0}));
  EXPECT_THAT(ParseTimestamp("2023-05-08T13:56:00Z"),
              IsOkAndHolds(Timestamp::FromSeconds(1683554160)));
  EXPECT_THAT(ParseTimestamp("2023-05-08 15:56+02:00"),
              IsOkAndHolds(Timestamp::FromSeconds(1683554160)));
  EXPECT_THAT(ParseTimestamp("2023-05-08T13:56:00.5Z"),
              IsOkAndHolds(Timestamp{1683554160LL * 1000000 + 500000}));
  EXPECT_THAT(ParseTimestamp("2024-02-29"), IsOk());
}

TEST(TimestampTest, RejectsMalformed) {
  for (const char* bad : {"", "2023", "2023-13-01", "2023-02-29", "2023-05-08T25:00",
                          "2023-05-08Tnoon", "2023-05-08Z junk", "08/05/2023"}) {
    EXPECT_THAT(ParseTimestamp(bad), StatusIs(StatusCode::kInvalidArgument)) << bad;
  }
}

TEST(TimestampTest, FormatRoundTrips) {
  for (const char* text : {"2023-05-08T13:56:00Z", "1969-12-31T23:59:59Z",
                           "2000-02-29T00:00:00.000001Z", "2099-12-31T23:59:59Z"}) {
    StatusOr<Timestamp> parsed = ParseTimestamp(text);
    ASSERT_THAT(parsed, IsOk());
    EXPECT_EQ(FormatTimestamp(*parsed), text);
  }
}

TEST(CivilDateTest, DayNumbersOfKnownDates) {
  EXPECT_EQ(core::DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(core::DaysFromCivil(2000, 3, 1), 11017);
  EXPECT_EQ(core::DaysFromCivil(1969, 12, 31), -1);
  EXPECT_EQ(core::CivilFromDays(19783), (core::CivilDate{2024, 3, 1}));
  EXPECT_EQ(core::CivilFromDays(-719162), (core::CivilDate{1, 1, 1}));
}

TEST(CivilDateTest, RoundTripsAcrossLeapDaysAndCenturies) {
  for (std::int64_t day = core::DaysFromCivil(1899, 12, 1); day < core::DaysFromCivil(2101, 1, 1);
       ++day) {
    const core::CivilDate date = core::CivilFromDays(day);
    ASSERT_EQ(core::DaysFromCivil(date.year, date.month, date.day), day);
    ASSERT_LE(date.day, core::DaysInMonth(date.year, date.month));
  }
}

TEST(CivilDateTest, LeapYearsMonthLengthsAndWeekdays) {
  EXPECT_TRUE(core::IsLeapYear(2000));
  EXPECT_FALSE(core::IsLeapYear(1900));
  EXPECT_TRUE(core::IsLeapYear(2024));
  EXPECT_EQ(core::DaysInMonth(2024, 2), 29);
  EXPECT_EQ(core::DaysInMonth(2023, 2), 28);
  EXPECT_EQ(core::DaysInMonth(2023, 4), 30);
  EXPECT_EQ(core::WeekdayOf(0), 3);                                // 1970-01-01, a Thursday
  EXPECT_EQ(core::WeekdayOf(core::DaysFromCivil(2024, 3, 1)), 4);  // a Friday
  EXPECT_EQ(core::WeekdayOf(-1), 2);                               // 1969-12-31, a Wednesday
}

TEST(ClockTest, FixedClockSteps) {
  auto clock = FixedClock(Timestamp{100}, 5);
  EXPECT_EQ(clock->Now().micros, 100);
  EXPECT_EQ(clock->Now().micros, 105);
  EXPECT_GT(SystemClock()->Now().micros, Timestamp::FromSeconds(1700000000).micros);
}

TEST(ScopeTest, ParsesAndPrintsNestedPaths) {
  StatusOr<Scope> scope = Scope::Parse("app:crm/user:alice/run:42");
  ASSERT_THAT(scope, IsOk());
  EXPECT_EQ(scope->path().size(), 3u);
  EXPECT_EQ(scope->kind(), ScopeKind::kRun);
  EXPECT_EQ(scope->name(), "42");
  EXPECT_EQ(scope->ToString(), "app:crm/user:alice/run:42");
  EXPECT_EQ(scope->Parent()->ToString(), "app:crm/user:alice");
  EXPECT_EQ(Scope(ScopeKind::kWorld, "locomo-conv-26").ToString(), "world:locomo-conv-26");
  EXPECT_THAT(Scope::Parse("world:a:b"), IsOk());  // ':' inside a name is allowed
}

TEST(ScopeTest, RejectsMalformed) {
  EXPECT_THAT(Scope::Parse(""), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(Scope::Parse("alice"), StatusIs(StatusCode::kInvalidArgument, HasSubstr("kind:name")));
  EXPECT_THAT(Scope::Parse("planet:x"), StatusIs(StatusCode::kInvalidArgument, HasSubstr("planet")));
  EXPECT_THAT(Scope::Parse("user:"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(Scope::Parse("user:a//run:b"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(Scope::Parse("user:a\x01"), StatusIs(StatusCode::kInvalidArgument));
  EXPECT_THAT(Scope::Parse("user:" + std::string(300, 'a')),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("bytes")));
  EXPECT_THAT(Scope::Parse("user:\xff\xfe"), StatusIs(StatusCode::kInvalidArgument, HasSubstr("UTF-8")));
}

// Look-alike names are one scope or refused: surrounding white space is trimmed, names are NFKC,
// and invisible characters (zero-width joiner, bidirectional controls) are errors.
TEST(ScopeTest, LookAlikeNamesAreOneScopeOrRefused) {
  StatusOr<Scope> plain = Scope::Parse("user:alice");
  ASSERT_THAT(plain, IsOk());
  for (const std::string text :
       {"user:alice ", " user:alice", "user: alice\t", "user:alice\xC2\xA0"}) {
    StatusOr<Scope> spaced = Scope::Parse(text);
    ASSERT_THAT(spaced, IsOk()) << text;
    EXPECT_EQ(spaced->ToString(), "user:alice") << text;
  }
  StatusOr<Scope> nested = Scope::Parse("app:crm /user:alice ");
  ASSERT_THAT(nested, IsOk());
  EXPECT_EQ(nested->ToString(), "app:crm/user:alice");

  // "josé" with a decomposed é (e + U+0301) is the composed one.
  StatusOr<Scope> composed = Scope::Parse("user:jos\xC3\xA9");
  StatusOr<Scope> decomposed = Scope::Parse("user:jose\xCC\x81");
  ASSERT_THAT(composed, IsOk());
  ASSERT_THAT(decomposed, IsOk());
  EXPECT_EQ(decomposed->ToString(), composed->ToString());

  EXPECT_THAT(Scope::Parse("user:ali\xE2\x80\x8D"
                           "ce"),  // U+200D zero-width joiner
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("U+200D")));
  EXPECT_THAT(Scope::Parse("user:alice\xE2\x80\x8B"),  // U+200B zero-width space
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("invisible")));
  EXPECT_THAT(Scope::Parse("user:\xE2\x80\xAE"
                           "ecila"),  // U+202E right-to-left override
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("U+202E")));
  EXPECT_THAT(Scope::Parse("user:   "), StatusIs(StatusCode::kInvalidArgument));
}

// Compatibility forms fold to their plain letters (NFKC): fullwidth "ａｌｉｃｅ" (U+FF41...) and
// the ligature "ﬁ" (U+FB01) name the same scope as the plain spelling.
TEST(ScopeTest, CompatibilityFormsAreThePlainScope) {
  StatusOr<Scope> fullwidth = Scope::Parse("user:\xEF\xBD\x81lice");  // U+FF41 + "lice"
  ASSERT_THAT(fullwidth, IsOk());
  EXPECT_EQ(fullwidth->ToString(), "user:alice");
  StatusOr<Scope> all_fullwidth =
      Scope::Parse("user:\xEF\xBD\x81\xEF\xBD\x8C\xEF\xBD\x89\xEF\xBD\x83\xEF\xBD\x85");
  ASSERT_THAT(all_fullwidth, IsOk());
  EXPECT_EQ(all_fullwidth->ToString(), "user:alice");
  StatusOr<Scope> ligature = Scope::Parse("app:\xEF\xAC\x81nance");  // U+FB01 + "nance"
  ASSERT_THAT(ligature, IsOk());
  EXPECT_EQ(ligature->ToString(), "app:finance");
  // A figure space (U+2007) at the end is trimmed.
  StatusOr<Scope> figure_space = Scope::Parse("user:alice\xE2\x80\x87");
  ASSERT_THAT(figure_space, IsOk());
  EXPECT_EQ(figure_space->ToString(), "user:alice");
  // A fullwidth solidus (U+FF0F) folds to '/', which a name may not hold.
  EXPECT_THAT(Scope::Parse("user:a\xEF\xBC\x8F"
                           "b"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("'/'")));
  // Built without Parse, a fullwidth name is not valid: Validate wants the NFKC form.
  EXPECT_THAT(Scope(ScopeKind::kUser, "\xEF\xBD\x81lice").Validate(),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("NFKC")));
}

// A name mixing Latin, Greek and Cyrillic letters is refused naming the scope and the odd
// letter; a name wholly in one of them (with digits and punctuation) is a scope.
TEST(ScopeTest, NamesMixingLookAlikeScriptsAreRefused) {
  // "аlice" with a Cyrillic "а" (U+0430).
  EXPECT_THAT(Scope::Parse("user:\xD0\xB0lice"),
              StatusIs(StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("scope \"user:\xD0\xB0lice\""), HasSubstr("U+0430"),
                             HasSubstr("Latin and Cyrillic"))));
  // "bοb" with a Greek omicron (U+03BF), nested under a plain scope.
  EXPECT_THAT(Scope::Parse("app:crm/user:b\xCE\xBF"
                           "b"),
              StatusIs(StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("app:crm/user:b\xCE\xBF"
                                       "b"),
                             HasSubstr("U+03BF"), HasSubstr("Latin and Greek"))));
  // Mostly Cyrillic "алисa" with a Latin "a" at the end: the Latin letter is the odd one.
  EXPECT_THAT(Scope::Parse("user:\xD0\xB0\xD0\xBB\xD0\xB8\xD1\x81"
                           "a"),
              StatusIs(StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("U+0061"), HasSubstr("Cyrillic and Latin"))));
  // Greek with a Cyrillic letter ("αβ" + Cyrillic "в" U+0432).
  EXPECT_THAT(Scope::Parse("user:\xCE\xB1\xCE\xB2\xD0\xB2"),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("U+0432")));
  // A fullwidth Latin letter folds to Latin first, so it mixes with Cyrillic too.
  EXPECT_THAT(Scope::Parse("user:\xD0\xB0\xD0\xBB\xEF\xBD\x89"),  // "ал" + U+FF49
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("U+0069")));

  for (const std::string name : {
           "user:\xD0\xB0\xD0\xBB\xD0\xB8\xD1\x81\xD0\xB0",          // "алиса"
           "user:\xD0\x90\xD0\xBB\xD0\xB8\xD1\x81\xD0\xB0-2024_01",  // "Алиса-2024_01"
           "user:\xCE\xB1\xCE\xBB\xCE\xAD\xCE\xBE\xCE\xB7\xCF\x82",  // "αλέξης"
           "user:alice-\xE6\x9D\xB1\xE4\xBA\xAC",                    // "alice-東京"
           "user:jos\xC3\xA9 2",                                     // "josé 2"
       }) {
    EXPECT_THAT(Scope::Parse(name), IsOk()) << name;
  }
  // Distinct names stay distinct scopes: the check refuses, it never rewrites.
  EXPECT_NE(Scope::Parse("user:\xD0\xB0\xD0\xBB\xD0\xB8\xD1\x81\xD0\xB0")->ToString(),
            Scope::Parse("user:alisa")->ToString());
}

// Integer literals no 64-bit type holds are found where they are written (outside strings);
// every integer from -2^63 to 2^64 - 1, and every number with a fraction or exponent, passes.
TEST(JsonIntegerTest, FindsIntegersBeyond64Bits) {
  EXPECT_EQ(core::FindJsonIntegerBeyond64Bits(R"({"n": 18446744073709551616})"),
            "18446744073709551616");  // 2^64
  EXPECT_EQ(core::FindJsonIntegerBeyond64Bits(R"({"a": [1, -9223372036854775809]})"),
            "-9223372036854775809");  // -2^63 - 1
  EXPECT_EQ(core::FindJsonIntegerBeyond64Bits(R"({"n":123456789012345678901234567890})"),
            "123456789012345678901234567890");
  for (const std::string_view fine : {
           R"({"n": 9007199254740993, "u": 18446744073709551615, "m": -9223372036854775808})",
           R"({"f": 18446744073709551616.0, "e": 1e400, "g": 123456789012345678901234E-3})",
           R"({"s": "18446744073709551616", "k\"99999999999999999999": 0})",
           R"({"z": 0, "neg": -0, "big": 00018446744073709551615})",
           R"([true, false, null, -])",
       }) {
    EXPECT_EQ(core::FindJsonIntegerBeyond64Bits(fine), std::nullopt) << fine;
  }
}

TEST(Utf8Test, FindsInvalidSequences) {
  EXPECT_TRUE(core::IsValidUtf8("héllo wörld — 東京 🎉"));
  EXPECT_EQ(core::FindInvalidUtf8("ab\xff"), 2u);
  EXPECT_EQ(core::FindInvalidUtf8("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(core::FindInvalidUtf8("x\xed\xa0\x80"), 1u);     // surrogate
  EXPECT_EQ(core::FindInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // > U+10FFFF
  EXPECT_EQ(core::FindInvalidUtf8("\xe2\x82"), 0u);          // truncated
  EXPECT_TRUE(core::IsBlank(" \t\n\xc2\xa0"));
  EXPECT_FALSE(core::IsBlank(" a "));
}

TEST(Sha256Test, NistVectors) {
  EXPECT_EQ(core::Sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(core::Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(core::Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(core::Sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Each path this CPU runs, on the FIPS 180-4 examples and the two-block message of 1,000,000
// "a"s fed in uneven pieces (buffered, whole blocks straight from the input, a buffered tail).
TEST(Sha256Test, EverySupportedPathGivesTheNistDigests) {
  const auto hex = [](core::Sha256::Path path, std::initializer_list<std::string_view> pieces) {
    core::Sha256 hasher(path);
    for (const std::string_view piece : pieces) hasher.Update(piece);
    std::string out;
    for (const std::uint8_t byte : hasher.Finish()) {
      out += "0123456789abcdef"[byte >> 4];
      out += "0123456789abcdef"[byte & 0xF];
    }
    return out;
  };
  const std::string million(1000000, 'a');
  const std::string_view m(million);
  for (const auto path : {core::Sha256::Path::kPortable, core::Sha256::Path::kShaExtensions}) {
    if (!core::Sha256::Supported(path)) continue;
    SCOPED_TRACE(path == core::Sha256::Path::kPortable ? "portable" : "sha extensions");
    EXPECT_EQ(hex(path, {"", std::string_view(), "abc", ""}),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(hex(path, {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"}),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    EXPECT_EQ(hex(path, {m.substr(0, 7), m.substr(7, 64), m.substr(71, 1000), m.substr(1071)}),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }
}

// The SHA extensions and the portable code agree on every length around the block and padding
// boundaries, whole or in two pieces.
TEST(Sha256Test, ShaExtensionsAgreeWithThePortableCode) {
  if (!core::Sha256::Supported(core::Sha256::Path::kShaExtensions)) {
    GTEST_SKIP() << "this CPU has no SHA extensions";
  }
  std::string input;
  for (std::size_t i = 0; i < 300; ++i) input += static_cast<char>((i * 131 + 7) % 256);
  for (std::size_t length = 0; length <= input.size(); ++length) {
    const std::string_view data = std::string_view(input).substr(0, length);
    core::Sha256 portable(core::Sha256::Path::kPortable);
    portable.Update(data);
    core::Sha256 extensions(core::Sha256::Path::kShaExtensions);
    extensions.Update(data.substr(0, length / 3));
    extensions.Update(data.substr(length / 3));
    EXPECT_EQ(portable.Finish(), extensions.Finish()) << "length " << length;
  }
}

TEST(IdsTest, ContentAddressesAreStableAndDistinct) {
  const std::string a = core::NodeId("turn", "{\"text\":\"hi\"}", "s", 1);
  EXPECT_EQ(a, core::NodeId("turn", "{\"text\":\"hi\"}", "s", 1));
  EXPECT_TRUE(core::LooksLikeId(a));
  EXPECT_NE(a, core::NodeId("turn", "{\"text\":\"hi\"}", "s", 2));
  EXPECT_NE(a, core::NodeId("fact", "{\"text\":\"hi\"}", "s", 1));
  // Length prefixes keep field boundaries apart.
  EXPECT_NE(core::NodeId("ab", "c", "", 0), core::NodeId("a", "bc", "", 0));
  EXPECT_FALSE(core::LooksLikeId("XYZ"));
}

TEST(CountTokensTest, CountsWordsAndPunctuation) {
  EXPECT_EQ(CountTokens(""), 0u);
  EXPECT_EQ(CountTokens("I went to Lisbon."), 6u);  // I, went, to, Lisb+on, .
  EXPECT_EQ(CountTokens("hello, world"), 5u);       // hell+o , worl+d
  EXPECT_EQ(CountTokens("   "), 0u);
}

}  // namespace
}  // namespace engram
