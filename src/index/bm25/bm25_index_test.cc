// Tests for engram_bm25: the BM25 function against a hand-computed reference, index maintenance
// (replace, remove, order independence, SameContent), multi-index search, filters, tie-breaks,
// explanations. Search time is measured by BM_Bm25Search in bench/micro_bench.cc.
#include "index/bm25/bm25_index.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "index/bm25/bm25.h"
#include "text/tokenizer.h"

namespace engram::index {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Optional;

using Terms = std::vector<std::string>;

std::vector<std::uint64_t> Docs(const std::vector<Bm25Hit>& hits) {
  std::vector<std::uint64_t> docs;
  for (const Bm25Hit& hit : hits) docs.push_back(hit.doc);
  return docs;
}

// The three documents of the reference example.
Bm25Index ReferenceIndex() {
  Bm25Index index;
  index.Add(1, Terms{"caroline", "moved", "lisbon"});
  index.Add(2, Terms{"lisbon", "sunny", "lisbon", "beach"});
  index.Add(3, Terms{"caroline", "likes", "jazz", "music", "concerts"});
  return index;
}

// Hand computation, k1 = 1.2, b = 0.75, query "lisbon jazz":
//   N = 3, lengths 3, 4, 5, avgdl = 12 / 3 = 4
//   df(lisbon) = 2 (docs 1, 2)  idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6)   = 0.470003629
//   df(jazz)   = 1 (doc 3)      idf = ln(1 + (3 - 1 + 0.5) / (1 + 0.5)) = ln(8 / 3) = 0.980829253
//   length norm k1 * (1 - b + b * dl / avgdl):
//     dl 3: 1.2 * (0.25 + 0.75 * 3 / 4) = 0.975
//     dl 4: 1.2 * (0.25 + 0.75 * 4 / 4) = 1.2
//     dl 5: 1.2 * (0.25 + 0.75 * 5 / 4) = 1.425
//   doc 1: lisbon tf 1: 0.470003629 * 1 * 2.2 / (1 + 0.975) = 0.470003629 * 1.113924051
//                                                           = 0.523548347
//   doc 2: lisbon tf 2: 0.470003629 * 2 * 2.2 / (2 + 1.2)   = 0.470003629 * 1.375
//                                                           = 0.646254990
//   doc 3: jazz   tf 1: 0.980829253 * 1 * 2.2 / (1 + 1.425) = 0.980829253 * 0.907216495
//                                                           = 0.889824477
//   ranking: doc 3 (rare term wins), doc 2 (tf 2 beats tf 1, saturated), doc 1.
TEST(Bm25ReferenceTest, ScoresMatchHandComputation) {
  const Bm25Index index = ReferenceIndex();
  EXPECT_EQ(index.doc_count(), 3u);
  EXPECT_EQ(index.total_length(), 12u);
  EXPECT_DOUBLE_EQ(index.average_length(), 4.0);
  EXPECT_NEAR(Bm25Idf(3, 2), 0.470003629245736, 1e-12);
  EXPECT_NEAR(Bm25Idf(3, 1), 0.980829253011726, 1e-12);

  const std::vector<Bm25Hit> hits = index.Search(Terms{"lisbon", "jazz"}, Bm25Config{}, 10);
  ASSERT_THAT(Docs(hits), ElementsAre(3u, 2u, 1u));
  EXPECT_NEAR(hits[0].score, std::log(8.0 / 3.0) * 2.2 / 2.425, 1e-9);
  EXPECT_NEAR(hits[0].score, 0.889824477, 1e-9);
  EXPECT_NEAR(hits[1].score, 0.646254990, 1e-9);
  EXPECT_NEAR(hits[2].score, 0.523548347, 1e-9);
  EXPECT_EQ(hits[1].terms.size(), 1u);
  EXPECT_EQ(hits[1].terms[0].term_frequency, 2u);
  EXPECT_EQ(hits[1].doc_length, 4u);
  EXPECT_EQ(hits[1].doc_count, 3u);
  EXPECT_DOUBLE_EQ(hits[1].average_length, 4.0);
}

TEST(Bm25FunctionTest, WeightAgreesWithTextbookFormula) {
  const Bm25Config config{.k1 = 1.5, .b = 0.6};
  for (const std::uint32_t tf : {1u, 2u, 7u}) {
    for (const std::uint32_t dl : {1u, 10u, 300u}) {
      const double idf = Bm25Idf(1000, 17);
      const Bm25TermWeight weight(idf, 2, 42.5, config);
      EXPECT_NEAR(weight.Score(tf, dl), 2 * Bm25TermScore(idf, tf, dl, 42.5, config), 1e-12);
    }
  }
  // Lucene's idf stays positive for terms in every document, and df is clamped to N.
  EXPECT_GT(Bm25Idf(10, 10), 0);
  EXPECT_DOUBLE_EQ(Bm25Idf(10, 50), Bm25Idf(10, 10));
  // No length normalisation without an average length.
  EXPECT_DOUBLE_EQ(Bm25TermWeight(1.0, 1, 0, Bm25Config{}).Score(1, 5),
                   Bm25TermScore(1.0, 1, 5, 0, Bm25Config{}));
}

TEST(Bm25IndexTest, MaintainsStatistics) {
  Bm25Index index = ReferenceIndex();
  EXPECT_EQ(index.term_count(), 9u);
  EXPECT_EQ(index.posting_count(), 11u);
  EXPECT_EQ(index.DocumentFrequency("lisbon"), 2u);
  EXPECT_EQ(index.DocumentFrequency("nowhere"), 0u);
  EXPECT_THAT(index.Postings("lisbon"), ElementsAre(Bm25Posting{1, 1, 3}, Bm25Posting{2, 2, 4}));
  EXPECT_TRUE(index.Contains(2));
  EXPECT_THAT(index.DocLength(2), Optional(4u));

  EXPECT_TRUE(index.Remove(2));
  EXPECT_FALSE(index.Remove(2));
  EXPECT_FALSE(index.Contains(2));
  EXPECT_EQ(index.DocLength(2), std::nullopt);
  EXPECT_EQ(index.doc_count(), 2u);
  EXPECT_EQ(index.total_length(), 8u);
  EXPECT_EQ(index.term_count(), 7u);  // "sunny" and "beach" lost their only posting
  EXPECT_THAT(index.Postings("sunny"), IsEmpty());
  EXPECT_THAT(index.Postings("lisbon"), ElementsAre(Bm25Posting{1, 1, 3}));

  index.Clear();
  EXPECT_EQ(index.doc_count(), 0u);
  EXPECT_EQ(index.term_count(), 0u);
  EXPECT_EQ(index.posting_count(), 0u);
}

TEST(Bm25IndexTest, AddingAnExistingDocReplacesIt) {
  Bm25Index index = ReferenceIndex();
  index.Add(2, Terms{"porto", "rain"});
  EXPECT_EQ(index.doc_count(), 3u);
  EXPECT_EQ(index.total_length(), 10u);
  EXPECT_THAT(index.Postings("lisbon"), ElementsAre(Bm25Posting{1, 1, 3}));
  EXPECT_THAT(index.Postings("porto"), ElementsAre(Bm25Posting{2, 1, 2}));

  Bm25Index expected;
  expected.Add(1, Terms{"caroline", "moved", "lisbon"});
  expected.Add(2, Terms{"porto", "rain"});
  expected.Add(3, Terms{"caroline", "likes", "jazz", "music", "concerts"});
  EXPECT_TRUE(index.SameContent(expected)) << *index.FirstDifference(expected);
}

// Holds: whether a doc's posting list entry exists, for docs before, between and after others.
TEST(Bm25IndexTest, HoldsAnswersWhetherADocContainsATerm) {
  Bm25Index index;
  index.Add(10, Terms{"jazz", "music"});
  index.Add(20, Terms{"rock"});
  index.Add(30, Terms{"jazz"});
  EXPECT_TRUE(index.Holds("jazz", 10));
  EXPECT_TRUE(index.Holds("jazz", 30));
  EXPECT_FALSE(index.Holds("jazz", 20));   // between the term's docs
  EXPECT_FALSE(index.Holds("jazz", 5));    // before them
  EXPECT_FALSE(index.Holds("jazz", 40));   // after them
  EXPECT_FALSE(index.Holds("opera", 10));  // a term no doc holds
  index.Remove(30);
  EXPECT_FALSE(index.Holds("jazz", 30));
}

// TermFrequency: the posting's tf, 0 for a doc or term without one.
TEST(Bm25IndexTest, TermFrequencyCountsATermsOccurrencesInADoc) {
  Bm25Index index;
  index.Add(10, Terms{"jazz", "music", "jazz"});
  index.Add(20, Terms{"rock"});
  EXPECT_EQ(index.TermFrequency("jazz", 10), 2u);
  EXPECT_EQ(index.TermFrequency("music", 10), 1u);
  EXPECT_EQ(index.TermFrequency("jazz", 20), 0u);
  EXPECT_EQ(index.TermFrequency("opera", 10), 0u);
}

// Query terms weighed over several indexes as one collection: repeats dropped in query order, N
// and df summed, a null index skipped.
TEST(Bm25IndexTest, WeighQueryTermsSumsTheIndexesStatistics) {
  Bm25Index first;
  first.Add(1, Terms{"jazz", "music"});
  first.Add(2, Terms{"rock"});
  Bm25Index second;
  second.Add(3, Terms{"jazz"});
  second.Add(4, Terms{"opera"});
  const std::vector<const Bm25Index*> indexes = {&first, nullptr, &second};
  const std::vector<Bm25QueryTerm> weighted =
      WeighQueryTerms(Terms{"jazz", "opera", "jazz", "blues"}, indexes);
  ASSERT_EQ(weighted.size(), 3u);
  EXPECT_EQ(weighted[0].term, "jazz");
  EXPECT_DOUBLE_EQ(weighted[0].idf, Bm25Idf(4, 2));
  EXPECT_EQ(weighted[1].term, "opera");
  EXPECT_DOUBLE_EQ(weighted[1].idf, Bm25Idf(4, 1));
  EXPECT_EQ(weighted[2].term, "blues");
  EXPECT_DOUBLE_EQ(weighted[2].idf, Bm25Idf(4, 0));
  EXPECT_THAT(WeighQueryTerms(Terms{}, indexes), IsEmpty());
}

TEST(Bm25IndexTest, RemoveThenAddGivesIdenticalContent) {
  const Bm25Index original = ReferenceIndex();
  Bm25Index index = ReferenceIndex();
  ASSERT_TRUE(index.Remove(1));
  EXPECT_FALSE(index.SameContent(original));
  EXPECT_THAT(index.FirstDifference(original), Optional(HasSubstr("doc count 2 != 3")));
  index.Add(1, Terms{"caroline", "moved", "lisbon"});
  EXPECT_TRUE(index.SameContent(original)) << *index.FirstDifference(original);
  EXPECT_TRUE(original.SameContent(index));
}

TEST(Bm25IndexTest, FirstDifferenceNamesTheDifference) {
  Bm25Index a;
  Bm25Index b;
  a.Add(1, Terms{"x", "y"});
  b.Add(1, Terms{"x", "z"});
  EXPECT_THAT(a.FirstDifference(b), Optional(HasSubstr("term 'y'")));
  Bm25Index c;
  c.Add(1, Terms{"x", "x"});
  Bm25Index d;
  d.Add(1, Terms{"x", "y"});
  d.Remove(1);
  d.Add(1, Terms{"x", "x"});
  EXPECT_TRUE(c.SameContent(d));  // term ids and free lists do not matter
}

// A corpus with a Zipf-like vocabulary, deterministic from its seed.
std::vector<Terms> MakeCorpus(std::size_t docs, std::size_t vocabulary, std::uint32_t seed,
                              std::size_t max_length = 30) {
  std::mt19937 random(seed);
  std::vector<double> weights;
  for (std::size_t rank = 1; rank <= vocabulary; ++rank) weights.push_back(1.0 / double(rank));
  std::discrete_distribution<std::size_t> word(weights.begin(), weights.end());
  std::uniform_int_distribution<std::size_t> length(1, max_length);
  std::vector<Terms> corpus(docs);
  for (Terms& terms : corpus) {
    const std::size_t size = length(random);
    for (std::size_t position = 0; position < size; ++position) {
      terms.push_back("w" + std::to_string(word(random)));
    }
  }
  return corpus;
}

std::vector<Terms> MakeQueries(std::size_t count, std::size_t vocabulary, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<std::size_t> word(0, vocabulary + 5);  // a few unknown words
  std::uniform_int_distribution<std::size_t> length(1, 6);
  std::vector<Terms> queries(count);
  for (Terms& query : queries) {
    const std::size_t size = length(random);
    for (std::size_t position = 0; position < size; ++position) {
      query.push_back("w" + std::to_string(word(random)));
    }
  }
  return queries;
}

void ExpectSameHits(const std::vector<Bm25Hit>& actual, const std::vector<Bm25Hit>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t hit_index = 0; hit_index < actual.size(); ++hit_index) {
    EXPECT_EQ(actual[hit_index].doc, expected[hit_index].doc) << "rank " << hit_index;
    EXPECT_EQ(actual[hit_index].score, expected[hit_index].score) << "rank " << hit_index;
    EXPECT_EQ(actual[hit_index].Explain(), expected[hit_index].Explain());
  }
}

TEST(Bm25IndexTest, IncrementalAndBulkBuildsInAnyOrderAgree) {
  const std::vector<Terms> corpus = MakeCorpus(600, 200, 7);
  Bm25Index bulk;
  for (std::size_t doc = 0; doc < corpus.size(); ++doc) bulk.Add(doc, corpus[doc]);

  // Shuffled order, with churn: docs first added with other content, extra docs later removed.
  std::vector<std::size_t> order(corpus.size());
  for (std::size_t doc = 0; doc < order.size(); ++doc) order[doc] = doc;
  std::mt19937 random(11);
  std::shuffle(order.begin(), order.end(), random);
  const std::vector<Terms> noise = MakeCorpus(corpus.size(), 300, 13);
  Bm25Index incremental;
  for (const std::size_t doc : order) {
    if (doc % 3 == 0) incremental.Add(doc, noise[doc]);
    incremental.Add(1000 + doc, noise[doc]);
  }
  for (const std::size_t doc : order) {
    incremental.Add(doc, corpus[doc]);
    EXPECT_TRUE(incremental.Remove(1000 + doc));
  }

  EXPECT_TRUE(incremental.SameContent(bulk)) << *incremental.FirstDifference(bulk);
  EXPECT_EQ(incremental.term_count(), bulk.term_count());
  for (const Terms& query : MakeQueries(50, 200, 17)) {
    ExpectSameHits(incremental.Search(query, Bm25Config{}, 20),
                   bulk.Search(query, Bm25Config{}, 20));
  }
}

TEST(Bm25IndexTest, MultiIndexSearchEqualsSearchOverTheUnion) {
  const std::vector<Terms> corpus = MakeCorpus(900, 150, 21);
  Bm25Index whole;
  std::array<Bm25Index, 3> parts;
  for (std::size_t doc = 0; doc < corpus.size(); ++doc) {
    whole.Add(doc, corpus[doc]);
    parts[(doc * 7 / 3) % 3].Add(doc, corpus[doc]);
  }
  const std::array<const Bm25Index*, 4> indexes = {&parts[2], nullptr, &parts[0], &parts[1]};
  for (const Terms& query : MakeQueries(60, 150, 23)) {
    ExpectSameHits(Bm25Index::Search(indexes, query, Bm25Config{}, 25),
                   whole.Search(query, Bm25Config{}, 25));
  }
}

TEST(Bm25IndexTest, SparseDocNumbersRankLikeDenseOnes) {
  // Doc numbers spread far apart take the hash-map accumulation path; the ranking must not change.
  const std::vector<Terms> corpus = MakeCorpus(400, 100, 31);
  Bm25Index dense;
  Bm25Index sparse;
  constexpr std::uint64_t kSpread = 1'000'000'007;
  for (std::size_t doc = 0; doc < corpus.size(); ++doc) {
    dense.Add(doc, corpus[doc]);
    sparse.Add(doc * kSpread, corpus[doc]);
  }
  for (const Terms& query : MakeQueries(40, 100, 37)) {
    const std::vector<Bm25Hit> expected = dense.Search(query, Bm25Config{}, 15);
    const std::vector<Bm25Hit> actual = sparse.Search(query, Bm25Config{}, 15);
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t hit_index = 0; hit_index < actual.size(); ++hit_index) {
      EXPECT_EQ(actual[hit_index].doc, expected[hit_index].doc * kSpread);
      EXPECT_EQ(actual[hit_index].score, expected[hit_index].score);
    }
  }
}

TEST(Bm25IndexTest, AcceptFilterDropsDocsBeforeTheCut) {
  const Bm25Index index = ReferenceIndex();
  const Terms query{"lisbon", "jazz"};
  std::vector<std::uint64_t> asked;
  const std::vector<Bm25Hit> hits = index.Search(query, Bm25Config{}, 2, [&](std::uint64_t doc) {
    asked.push_back(doc);
    return doc != 3;
  });
  EXPECT_THAT(Docs(hits), ElementsAre(2u, 1u));  // doc 1 fills the slot doc 3 left
  std::sort(asked.begin(), asked.end());
  EXPECT_THAT(asked, ElementsAre(1u, 2u, 3u));  // each matching doc asked once
  EXPECT_THAT(index.Search(query, Bm25Config{}, 10, [](std::uint64_t) { return false; }),
              IsEmpty());
  // A filter may itself search (on the same thread) without disturbing the outer search.
  const std::vector<Bm25Hit> nested = index.Search(query, Bm25Config{}, 10, [&](std::uint64_t doc) {
    return !index
                .Search(Terms{"caroline"}, Bm25Config{}, 10,
                        [&](std::uint64_t inner) { return inner == doc; })
                .empty();
  });
  EXPECT_THAT(Docs(nested), ElementsAre(3u, 1u));
}

TEST(Bm25IndexTest, TiesAreBrokenByDocAscending) {
  Bm25Index index;
  for (const std::uint64_t doc : {9u, 2u, 5u, 7u}) index.Add(doc, Terms{"same", "words"});
  index.Add(4, Terms{"other", "words", "here"});
  EXPECT_THAT(Docs(index.Search(Terms{"same"}, Bm25Config{}, 10)), ElementsAre(2u, 5u, 7u, 9u));
  EXPECT_THAT(Docs(index.Search(Terms{"same"}, Bm25Config{}, 2)), ElementsAre(2u, 5u));
  const std::vector<Bm25Hit> hits = index.Search(Terms{"words"}, Bm25Config{}, 10);
  EXPECT_THAT(Docs(hits), ElementsAre(2u, 5u, 7u, 9u, 4u));  // the longer doc scores lower
}

TEST(Bm25IndexTest, ExplanationSumsToTheScore) {
  const Bm25Index index = ReferenceIndex();
  const std::vector<Bm25Hit> hits =
      index.Search(Terms{"lisbon", "moved", "caroline", "absent"}, Bm25Config{}, 10);
  ASSERT_FALSE(hits.empty());
  for (const Bm25Hit& hit : hits) {
    double sum = 0;
    for (const Bm25TermExplanation& term : hit.terms) sum += term.contribution;
    EXPECT_EQ(sum, hit.score) << hit.Explain();
  }
  ASSERT_EQ(hits[0].doc, 1u);
  ASSERT_EQ(hits[0].terms.size(), 3u);
  EXPECT_EQ(hits[0].terms[0].term, "lisbon");  // query order
  EXPECT_EQ(hits[0].terms[1].term, "moved");
  EXPECT_EQ(hits[0].terms[2].term, "caroline");
  const Bm25Hit& doc2 = hits[1];
  ASSERT_EQ(doc2.doc, 2u);
  EXPECT_EQ(doc2.Explain(),
            "bm25 0.65 = lisbon(tf 2, df 2, idf 0.47, 0.65) [dl 4, avgdl 4.00, N 3]");
  EXPECT_THAT(hits[0].Explain(), HasSubstr("moved(tf 1, df 1, idf 0.98, 1.09)"));
}

TEST(Bm25IndexTest, RepeatedQueryTermsCountPerOccurrence) {
  const Bm25Index index = ReferenceIndex();
  const std::vector<Bm25Hit> once = index.Search(Terms{"jazz"}, Bm25Config{}, 10);
  const std::vector<Bm25Hit> twice =
      index.Search(Terms{"jazz", "lisbon", "jazz"}, Bm25Config{}, 10);
  ASSERT_EQ(once.size(), 1u);
  ASSERT_FALSE(twice.empty());
  ASSERT_EQ(twice[0].doc, 3u);
  EXPECT_DOUBLE_EQ(twice[0].score, 2 * once[0].score);
  ASSERT_EQ(twice[0].terms.size(), 1u);
  EXPECT_EQ(twice[0].terms[0].query_count, 2u);
  EXPECT_THAT(twice[0].Explain(), HasSubstr("jazz(x2, tf 1, df 1, idf 0.98, 1.78)"));
}

TEST(Bm25IndexTest, EmptyQueriesAndMissesReturnNothing) {
  const Bm25Index index = ReferenceIndex();
  EXPECT_THAT(index.Search(Terms{}, Bm25Config{}, 10), IsEmpty());
  EXPECT_THAT(index.Search(Terms{"porto", ""}, Bm25Config{}, 10), IsEmpty());
  EXPECT_THAT(index.Search(Terms{"lisbon"}, Bm25Config{}, 0), IsEmpty());
  EXPECT_THAT(Bm25Index().Search(Terms{"lisbon"}, Bm25Config{}, 10), IsEmpty());
  EXPECT_THAT(Bm25Index::Search({}, Terms{"lisbon"}, Bm25Config{}, 10), IsEmpty());
  const std::array<const Bm25Index*, 1> only_null = {nullptr};
  EXPECT_THAT(Bm25Index::Search(only_null, Terms{"lisbon"}, Bm25Config{}, 10), IsEmpty());
}

TEST(Bm25IndexTest, DocInSeveralIndexesIsReturnedOnce) {
  Bm25Index a;
  Bm25Index b;
  a.Add(1, Terms{"lisbon", "trip"});
  b.Add(1, Terms{"lisbon", "trip"});
  b.Add(2, Terms{"lisbon"});
  const std::array<const Bm25Index*, 2> indexes = {&a, &b};
  const std::vector<Bm25Hit> hits =
      Bm25Index::Search(indexes, Terms{"lisbon", "trip"}, Bm25Config{}, 10);
  EXPECT_THAT(Docs(hits), ElementsAre(1u, 2u));
  ASSERT_EQ(hits[0].terms.size(), 2u);
  EXPECT_EQ(hits[0].terms[0].doc_frequency, 3u);  // statistics count it in each index
}

TEST(Bm25IndexTest, WorksWithTheTokenizer) {
  const text::Tokenizer tokenizer;
  Bm25Index user_index;
  Bm25Index run_index;
  user_index.Add(1, tokenizer.Terms("Caroline moved to Lisbon last May."));
  user_index.Add(2, tokenizer.Terms("Melanie's kids love painting."));
  run_index.Add(3, tokenizer.Terms("Lisbon is sunny; Caroline's moving went well."));
  const std::array<const Bm25Index*, 2> indexes = {&user_index, &run_index};
  const std::vector<Bm25Hit> hits =
      Bm25Index::Search(indexes, tokenizer.Terms("Where did Caroline move?"), Bm25Config{}, 10);
  EXPECT_THAT(Docs(hits), ElementsAre(1u, 3u));
  EXPECT_THAT(hits[0].Explain(), HasSubstr("carolin(tf 1, df 2"));
  EXPECT_THAT(hits[0].Explain(), HasSubstr("move(tf 1, df 2"));
}

TEST(Bm25ScoreMaxTest, EqualsTheLargestScoreBitForBit) {
  const Bm25Config config;
  for (std::uint32_t seed = 0; seed < 200; ++seed) {
    std::mt19937 random(seed);
    const Bm25TermWeight weight(0.1 + (random() % 50) / 10.0, 1 + random() % 3,
                                1.0 + (random() % 400) / 10.0, config);
    Bm25ScoreMax max(weight);
    double expected = 0;
    for (std::size_t pair = 1 + random() % 40; pair > 0; --pair) {
      // Mostly small term frequencies, some beyond the tracked ones.
      const std::uint32_t tf = random() % 5 == 0 ? 1 + random() % 60 : 1 + random() % 4;
      const std::uint32_t dl = tf + random() % 80;
      max.Offer(tf, dl);
      expected = std::max(expected, weight.Score(tf, dl));
    }
    EXPECT_EQ(max.Max(), expected) << "seed " << seed;
  }
  EXPECT_EQ(Bm25ScoreMax(Bm25TermWeight(1.0, 1, 4.0, config)).Max(), 0.0);
}

// The search over one index skips docs by MaxScore; over two indexes (one of them empty, which
// changes no statistic) it scores every posting. Both must give the same hits, scores to the
// last bit and explanations, on generated collections whose skewed term frequencies and repeated
// documents make ties, for every limit, with and without a filter.
TEST(Bm25MaxScoreTest, SkippingEqualsScoringEveryPosting) {
  const Bm25Config config;
  const Bm25Index empty;
  std::size_t skipped_somewhere = 0;
  for (std::uint32_t seed = 0; seed < 60; ++seed) {
    std::mt19937 random(seed);
    const std::size_t vocabulary = 4 + seed % 9;
    std::vector<double> term_weights;  // Zipf-like: term t drawn ∝ 1 / (t + 1)
    for (std::size_t term = 0; term < vocabulary; ++term) term_weights.push_back(1.0 / (term + 1.0));
    std::discrete_distribution<std::size_t> draw_term(term_weights.begin(), term_weights.end());
    std::uniform_int_distribution<std::size_t> draw_length(1, 1 + seed % 8);
    const std::size_t doc_total = 1 + (seed * 37) % 240;
    Bm25Index index;
    std::vector<Terms> contents;
    std::uint64_t doc = 0;
    for (std::size_t doc_idx = 0; doc_idx < doc_total; ++doc_idx) {
      doc += 1 + random() % 3;  // gaps between doc numbers
      Terms terms;
      if (!contents.empty() && random() % 4 == 0) {
        terms = contents[random() % contents.size()];  // a repeated document: a tie
      } else {
        for (std::size_t length = draw_length(random); length > 0; --length) {
          terms.push_back("t" + std::to_string(draw_term(random)));
        }
      }
      contents.push_back(terms);
      index.Add(doc, terms);
    }
    for (std::size_t query_idx = 0; query_idx < 6; ++query_idx) {
      Terms query;
      for (std::size_t length = 1 + random() % 5; length > 0; --length) {
        query.push_back("t" + std::to_string(draw_term(random)));
      }
      if (query_idx == 5) query.push_back("absent");
      const std::array<const Bm25Index*, 1> one = {&index};
      const std::array<const Bm25Index*, 2> two = {&index, &empty};
      for (const bool filtered : {false, true}) {
        std::function<bool(std::uint64_t)> accept;
        if (filtered) accept = [](std::uint64_t candidate) { return candidate % 3 != 0; };
        Bm25SearchStats every;
        const std::vector<Bm25Hit> all =
            Bm25Index::Search(two, query, config, doc_total + 1, accept, &every);
        for (std::size_t limit = 1; limit <= all.size() + 1; ++limit) {
          Bm25SearchStats stats;
          const std::vector<Bm25Hit> fast = Bm25Index::Search(one, query, config, limit, accept, &stats);
          const std::vector<Bm25Hit> slow = Bm25Index::Search(two, query, config, limit, accept);
          ASSERT_EQ(fast.size(), slow.size()) << "seed " << seed << " limit " << limit;
          for (std::size_t hit_idx = 0; hit_idx < fast.size(); ++hit_idx) {
            ASSERT_EQ(fast[hit_idx].doc, slow[hit_idx].doc) << "seed " << seed << " limit " << limit;
            ASSERT_EQ(fast[hit_idx].score, slow[hit_idx].score);
            ASSERT_EQ(fast[hit_idx].Explain(), slow[hit_idx].Explain());
          }
          EXPECT_LE(stats.docs_scored, every.docs_scored);
          if (stats.docs_visited < every.docs_visited) ++skipped_somewhere;
        }
      }
    }
  }
  EXPECT_GT(skipped_somewhere, 0u);  // the comparison covered searches that skipped docs
}

// One rare term and one common term, top 1: once the doc holding both is kept, the common term's
// bound lies below its score, so the docs holding only the common term are never visited. The
// collection is chosen so that bound is within 10 % of that score: a bound looser by more than
// that visits the 200 docs of the common term.
TEST(Bm25MaxScoreTest, DocsOfTermsBelowTheThresholdAreNotVisited) {
  const Bm25Config config;
  constexpr std::size_t kCommonOnly = 200;
  std::size_t chosen_rare = 0, chosen_filler = 0;
  for (std::size_t rare = 2; rare < 150 && chosen_rare == 0; ++rare) {
    for (std::size_t filler = 0; filler < 30; ++filler) {
      // doc 1: rare common + filler; kCommonOnly docs "common x"; rare - 1 docs "rare".
      const double doc_count = static_cast<double>(1 + kCommonOnly + rare - 1);
      const double total = static_cast<double>(2 + filler + 2 * kCommonOnly + rare - 1);
      const double average = total / doc_count;
      const Bm25TermWeight rare_weight(Bm25Idf(static_cast<std::uint64_t>(doc_count), rare), 1,
                                       average, config);
      const Bm25TermWeight common_weight(
          Bm25Idf(static_cast<std::uint64_t>(doc_count), kCommonOnly + 1), 1, average, config);
      const auto first_length = static_cast<std::uint32_t>(2 + filler);
      const double first_score =
          rare_weight.Score(1, first_length) + common_weight.Score(1, first_length);
      const double common_bound = common_weight.Score(1, 2);
      if (common_bound < first_score && first_score < 1.1 * common_bound &&
          common_bound < rare_weight.Score(1, 1)) {
        chosen_rare = rare;
        chosen_filler = filler;
        break;
      }
    }
  }
  ASSERT_GT(chosen_rare, 0u) << "no collection puts the bound within 10 % of the score";
  Bm25Index index;
  Terms first = {"rare", "common"};
  first.insert(first.end(), chosen_filler, "x");
  index.Add(1, first);
  for (std::uint64_t doc = 2; doc < 2 + kCommonOnly; ++doc) index.Add(doc, Terms{"common", "x"});
  for (std::uint64_t doc = 2 + kCommonOnly; doc < 1 + kCommonOnly + chosen_rare; ++doc) {
    index.Add(doc, Terms{"rare"});
  }
  Bm25SearchStats stats;
  const std::vector<Bm25Hit> hits =
      index.Search(Terms{"rare", "common"}, config, /*limit=*/1, nullptr);
  const std::array<const Bm25Index*, 1> one = {&index};
  const std::vector<Bm25Hit> counted =
      Bm25Index::Search(one, Terms{"rare", "common"}, config, /*limit=*/1, nullptr, &stats);
  ASSERT_EQ(counted.size(), 1u);
  EXPECT_EQ(counted.front().doc, hits.front().doc);
  EXPECT_EQ(stats.docs_visited, chosen_rare);  // doc 1 and the docs holding only "rare"
}

}  // namespace
}  // namespace engram::index
