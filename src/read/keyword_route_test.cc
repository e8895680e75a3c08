// Tests for the keyword route (KeyMem Path B: keyword graph with an intersection filter) and for
// the query frame's WordNet synonyms (AddSynonyms on a small hand-made lexicon fixture).
#include "read/keyword_route.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engram/testing/temp_dir.h"
#include "index/bm25/bm25.h"
#include "lexicon/lexicon.h"
#include "read/query_frame.h"

namespace engram::read {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const text::Tokenizer& Tok() {
  static const text::Tokenizer tokenizer;
  return tokenizer;
}

Keyword Kw(std::string term, std::vector<std::string> synonyms = {}) {
  Keyword keyword;
  keyword.word = term;
  keyword.term = std::move(term);
  keyword.synonyms = std::move(synonyms);
  return keyword;
}

QueryFrame KeywordFrame(std::vector<Keyword> keywords) {
  QueryFrame frame;
  frame.keywords = std::move(keywords);
  for (const Keyword& keyword : frame.keywords) frame.terms.push_back(keyword.term);
  return frame;
}

class KeywordRouteTest : public ::testing::Test {
 protected:
  void Add(std::uint64_t doc, std::string_view text) { index.Add(doc, Tok().Terms(text)); }

  std::vector<RouteCandidate> Run(const QueryFrame& frame, std::size_t limit = 100) const {
    const std::vector<const index::Bm25Index*> indexes = {&index};
    RouteContext context;
    context.frame = &frame;
    context.config = &config;
    context.text_indexes = indexes;
    context.limit = limit;
    StatusOr<std::vector<RouteCandidate>> candidates = KeywordRoute().Run(context);
    EXPECT_TRUE(candidates.ok());
    return candidates.ok() ? *candidates : std::vector<RouteCandidate>{};
  }

  static std::vector<std::int64_t> Rows(const std::vector<RouteCandidate>& candidates) {
    std::vector<std::int64_t> rows;
    for (const RouteCandidate& candidate : candidates) rows.push_back(candidate.row);
    return rows;
  }

  index::Bm25Index index;
  Config config;
};

TEST_F(KeywordRouteTest, IntersectionFilterNeedsTwoDistinctKeywords) {
  Add(1, "Caroline moved to Lisbon");
  Add(2, "Lisbon is sunny");
  Add(3, "Caroline likes painting");
  Add(4, "Melanie went hiking");
  // Turns 2 and 3 hold one of the two keywords each: only turn 1 joins both.
  const std::vector<RouteCandidate> both = Run(KeywordFrame({Kw("carolin"), Kw("lisbon")}));
  EXPECT_THAT(Rows(both), ElementsAre(1));
  // N = 4, df = 2 for both: idf = ln(1 + 2.5 / 2.5) = ln 2.
  ASSERT_EQ(both.size(), 1u);
  EXPECT_NEAR(both[0].score, 2 * std::log(2.0), 1e-12);
  // With one keyword, one match is enough; equal idfs tie by row.
  EXPECT_THAT(Rows(Run(KeywordFrame({Kw("lisbon")}))), ElementsAre(1, 2));
  // A keyword that no turn holds still counts in the required number (min(2, 2) = 2).
  EXPECT_THAT(Run(KeywordFrame({Kw("lisbon"), Kw("zebra")})), IsEmpty());
}

TEST_F(KeywordRouteTest, TurnsJoiningRareKeywordsRankFirstWithExactScores) {
  Add(1, "Caroline moved to Lisbon");
  Add(2, "Lisbon is sunny");
  Add(3, "Caroline likes painting");
  Add(4, "Melanie went hiking");
  const std::vector<RouteCandidate> candidates =
      Run(KeywordFrame({Kw("carolin"), Kw("lisbon"), Kw("sunni")}));
  // Turn 3 holds one keyword of three: filtered out. sunny is rarer (df 1) than the others.
  ASSERT_THAT(Rows(candidates), ElementsAre(2, 1));
  const double idf_common = std::log(2.0);             // df 2 of N 4
  const double idf_sunny = std::log(1.0 + 3.5 / 1.5);  // df 1 of N 4
  EXPECT_NEAR(candidates[0].score, idf_common + idf_sunny, 1e-12);
  EXPECT_NEAR(candidates[1].score, 2 * idf_common, 1e-12);
  EXPECT_DOUBLE_EQ(idf_sunny, index::Bm25Idf(4, 1));
  EXPECT_EQ(candidates[0].explanation,
            "keyword 1.90 = lisbon(idf 0.69) + sunni(idf 1.20) [2 of 3 keywords]");
  EXPECT_EQ(candidates[1].explanation,
            "keyword 1.39 = carolin(idf 0.69) + lisbon(idf 0.69) [2 of 3 keywords]");
}

TEST_F(KeywordRouteTest, SynonymMatchesCountForTheirKeywordAtTheSynonymWeight) {
  Add(1, "Melanie bought an automobile in Lisbon");
  Add(2, "the car broke down in Lisbon");
  Add(3, "a car, I mean an automobile, in Lisbon");
  Add(4, "an automobile and a car");
  Add(5, "nothing here");
  const QueryFrame frame = KeywordFrame({Kw("car", {"automobil"}), Kw("lisbon")});
  const std::vector<RouteCandidate> candidates = Run(frame);
  // N = 5; df(car) = 3, df(automobil) = 3, df(lisbon) = 3: every idf is ln(1 + 2.5 / 3.5).
  const double idf = std::log(1.0 + 2.5 / 3.5);
  // Turn 4 holds car and automobile: both forms of one keyword, so one keyword of two: out.
  ASSERT_THAT(Rows(candidates), ElementsAre(2, 3, 1));
  EXPECT_NEAR(candidates[0].score, 2 * idf, 1e-12);  // car (own term) + lisbon
  EXPECT_NEAR(candidates[1].score, 2 * idf, 1e-12);  // the own term beats the synonym
  EXPECT_NEAR(candidates[2].score, 0.5 * idf + idf, 1e-12);
  EXPECT_EQ(candidates[1].explanation,
            "keyword 1.08 = car(idf 0.54) + lisbon(idf 0.54) [2 of 2 keywords]");
  EXPECT_EQ(candidates[2].explanation,
            "keyword 0.81 = automobil~car(synonym, idf 0.54 x 0.50, 0.27) + lisbon(idf 0.54) "
            "[2 of 2 keywords]");

  config.recall.keyword_synonym_weight = 1.0;
  const std::vector<RouteCandidate> full = Run(frame);
  ASSERT_THAT(Rows(full), ElementsAre(1, 2, 3));  // all three tie at 2 idf: by row
  EXPECT_NEAR(full[0].score, 2 * idf, 1e-12);
}

TEST_F(KeywordRouteTest, ASynonymThatIsAnotherKeywordBelongsToThatKeyword) {
  Add(1, "an automobile");
  Add(2, "a car");
  Add(3, "nothing");
  // automobil is the second keyword's own term: a turn holding it matches that keyword only,
  // so neither turn joins two keywords.
  EXPECT_THAT(Run(KeywordFrame({Kw("car", {"automobil"}), Kw("automobil")})), IsEmpty());
}

TEST_F(KeywordRouteTest, RespectsTheLimitAndIsDeterministic) {
  for (std::uint64_t doc = 20; doc >= 1; --doc) {
    Add(doc, doc % 3 == 0 ? "Lisbon trams and sunny Lisbon hills" : "sunny Lisbon");
  }
  const QueryFrame frame = KeywordFrame({Kw("lisbon"), Kw("sunni"), Kw("tram")});
  const std::vector<RouteCandidate> first = Run(frame, 5);
  // Turns 3, 6, 9, 12, 15, 18 join three keywords; the best five by row.
  EXPECT_THAT(Rows(first), ElementsAre(3, 6, 9, 12, 15));
  const std::vector<RouteCandidate> again = Run(frame, 5);
  ASSERT_EQ(again.size(), first.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(again[i].row, first[i].row);
    EXPECT_EQ(again[i].score, first[i].score);
    EXPECT_EQ(again[i].explanation, first[i].explanation);
  }
  // Term frequency does not count: the repeated "Lisbon" adds nothing.
  const std::vector<RouteCandidate> all = Run(frame);
  ASSERT_EQ(all.size(), 20u);
  EXPECT_EQ(all[6].row, 1);
  EXPECT_NEAR(all[6].score, 2 * index::Bm25Idf(20, 20), 1e-12);
}

TEST_F(KeywordRouteTest, NoKeywordsOrNoIndexProposesNothing) {
  Add(1, "Lisbon");
  EXPECT_THAT(Run(KeywordFrame({})), IsEmpty());
  QueryFrame frame = KeywordFrame({Kw("lisbon")});
  RouteContext context;
  context.frame = &frame;
  context.config = &config;
  StatusOr<std::vector<RouteCandidate>> candidates = KeywordRoute().Run(context);
  ASSERT_TRUE(candidates.ok());
  EXPECT_THAT(*candidates, IsEmpty());
}

// A tiny lexicon directory: the files Lexicons::CompileInMemory needs, with a few WordNet synsets.
class LexiconFixture {
 public:
  LexiconFixture() {
    std::filesystem::create_directories(dir_ + "/wordnet");
    Write("SHA256SUMS", "fixture\n");
    Write("vader_lexicon.txt", "good\t1.9\t0.9\t[2, 2]\n");
    Write("pos_lexicon.tsv", "car\tNN\nbuy\tVB|NN\nLisbon\tNNP\nhike\tVB|NN\n");
    Write("first_names_male.txt", "Mark\n");
    Write("first_names_female.txt", "Anna\n");
    Write("places_cities.txt", "Lisbon\n");
    Write("places_regions.txt", "Bavaria\n");
    Write("places_countries.txt", "Portugal\n");
    const std::string header = "  1 licence header line  \n";
    Write("wordnet/data.noun",
          header +
              "00000001 06 n 05 car 0 automobile 0 auto 0 machine 0 motorcar 0 000 | a vehicle\n"
              "00000002 06 n 03 car 0 railway_car 0 it 0 000 | a railway vehicle\n"
              "00000003 06 n 02 lisbon 0 capital_of_portugal 0 000 | a city\n"
              "00000004 04 n 02 hike 0 hiking 0 000 | a walk\n"
              "00000005 04 n 02 buy 0 bargain 0 000 | a good purchase\n");
    Write("wordnet/data.verb", header +
                                   "00000010 40 v 02 buy 0 purchase 0 000 | obtain\n"
                                   "00000011 38 v 02 hike 0 tramp 0 000 | walk\n");
    Write("wordnet/data.adj", header);
    Write("wordnet/data.adv", header);
    Write("wordnet/noun.exc", "");
    Write("wordnet/verb.exc", "bought buy\n");
    Write("wordnet/adj.exc", "");
    Write("wordnet/adv.exc", "");
  }
  const std::string& dir() const { return dir_; }

 private:
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  engram::testing::TempDir root_{"engram_keyword_test"};
  std::string dir_ = root_.File("lexicons");
};

TEST(AddSynonymsTest, SingleWordSynonymsAsIndexTermsInWordNetOrder) {
  LexiconFixture fixture;
  StatusOr<std::shared_ptr<const lexicon::Lexicons>> lexicons =
      lexicon::Lexicons::CompileInMemory(fixture.dir());
  ASSERT_TRUE(lexicons.ok());
  QueryFrame frame = BuildQueryFrame(Tok(), "Which cars did Mark buy in Lisbon in 2023?",
                                     *ParseTimestamp("2024-05-10T12:00:00Z"));
  ASSERT_EQ(frame.keywords.size(), 5u);  // car, mark, buy, lisbon, 2023
  AddSynonyms(frame, **lexicons, Tok());
  // car (lemma of "cars"): auto, automobile, machine, motorcar, sorted; railway_car is no single
  // word, "it" a stopword; at most three.
  EXPECT_THAT(frame.keywords[0].synonyms, ElementsAre("auto", "automobil", "machin"));
  EXPECT_THAT(frame.keywords[1].synonyms, IsEmpty());  // Mark is a name of the question
  // buy: synonyms of every sense (bargain, purchase), as stemmed terms.
  EXPECT_THAT(frame.keywords[2].synonyms, ElementsAre("bargain", "purchas"));
  EXPECT_THAT(frame.keywords[3].synonyms, IsEmpty());  // capital_of_portugal: no single word
  EXPECT_THAT(frame.keywords[4].synonyms, IsEmpty());  // a number
  EXPECT_EQ(DescribeFrame(frame).substr(DescribeFrame(frame).find(" keywords=")),
            " keywords=car(auto,automobil,machin),mark,buy(bargain,purchas),lisbon,2023");

  // A synonym that is another keyword's term, or that stems to the keyword's own term, is
  // skipped; max_per_keyword bounds the list; a second call gives the same frame.
  QueryFrame hike = BuildQueryFrame(Tok(), "Did she hike or take the automobile?",
                                    *ParseTimestamp("2024-05-10T12:00:00Z"));
  hike.keywords.insert(hike.keywords.begin(), Kw("car"));
  AddSynonyms(hike, **lexicons, Tok(), 2);
  EXPECT_THAT(hike.keywords[0].synonyms, ElementsAre("auto", "machin"));
  const std::vector<std::string> hike_synonyms = hike.keywords[1].synonyms;
  EXPECT_EQ(hike.keywords[1].term, "hike");
  EXPECT_THAT(hike_synonyms, ElementsAre("tramp"));  // "hiking" stems to hike
  AddSynonyms(hike, **lexicons, Tok(), 2);
  EXPECT_EQ(hike.keywords[1].synonyms, hike_synonyms);
}

}  // namespace
}  // namespace engram::read
