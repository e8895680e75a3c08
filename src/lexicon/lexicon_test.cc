// Lexicon compiler and lookups on a small hand-made fixture (exact expectations), the compiled
// cache round trip, the missing-file error, and a few lookups and VADER reference scores on the
// installed lexicons (scripts/setup installs them into the data directory).
#include "lexicon/lexicon.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/paths.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"
#include "lexicon/sentiment.h"

namespace engram::lexicon {
namespace {

namespace fs = std::filesystem;
using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FixtureDir {
 public:
  FixtureDir() {
    fs::create_directories(dir_ + "/wordnet");
    Write("SHA256SUMS", "fixture\n");
    Write("vader_lexicon.txt",
          "good\t1.9\t0.9\t[2, 2]\nbad\t-2.5\t0.6\t[-2, -3]\n:)\t2.0\t1.1\t[2, 2]\n");
    Write("pos_lexicon.tsv",
          "Berlin\tNNP|JJ\nMark\tNNP\nParis\tNNP\nbook\tNN|VB\nmark\tNN|VB\nthe\tDT\n"
          "quickly\tRB\n");
    Write("first_names_male.txt", "Mark\nJosé\n");
    Write("first_names_female.txt", "Anna\nParis\n");
    Write("places_cities.txt", "Berlin\nNew York\nParis\n");
    Write("places_regions.txt", "Bavaria\n");
    Write("places_countries.txt", "Germany\nJordan\n");
    const std::string header = "  1 licence header line  \n";
    Write("wordnet/data.noun",
          header +
              "00000001 03 n 02 car 0 automobile 0 000 | a vehicle\n"
              "00000002 03 n 01 mouse 0 000 | a rodent\n"
              "00000003 03 n 01 New_York 0 000 | a city\n");
    Write("wordnet/data.verb", header + "00000010 30 v 02 go 0 travel 0 000 | move\n");
    Write("wordnet/data.adj", header + "00000020 00 a 01 big(a) 0 000 | large\n");
    Write("wordnet/data.adv", header);
    Write("wordnet/noun.exc", "mice mouse\n");
    Write("wordnet/verb.exc", "went go\n");
    Write("wordnet/adj.exc", "bigger big\n");
    Write("wordnet/adv.exc", "");
  }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  const std::string& data_dir() const { return data_dir_; }
  const std::string& dir() const { return dir_; }

 private:
  engram::testing::TempDir temp_dir_{"engram_lexicon_test"};
  std::string data_dir_ = temp_dir_.path();
  std::string dir_ = data_dir_ + "/lexicons";
};

TEST(LexiconFixtureTest, CompilesEveryTable) {
  FixtureDir fixture;
  auto lexicons = Lexicons::CompileInMemory(fixture.dir());
  ASSERT_THAT(lexicons, IsOk());
  const Lexicons& lex = **lexicons;
  EXPECT_EQ(lex.vader_entries(), 3u);
  EXPECT_EQ(lex.pos_entries(), 6u);  // "Mark" and "mark" share the key "mark"
  EXPECT_EQ(lex.wordnet_lemmas(), 7u);
  EXPECT_FLOAT_EQ(*lex.Valence("good"), 1.9f);
  EXPECT_FLOAT_EQ(*lex.Valence(":)"), 2.0f);
  EXPECT_FALSE(lex.Valence("meh").has_value());

  const PosInfo book = lex.Pos("Book");
  EXPECT_TRUE(book.found);
  EXPECT_EQ(book.primary, WordClass::kNoun);
  EXPECT_TRUE(book.Has(WordClass::kVerb));
  EXPECT_TRUE(book.common);
  const PosInfo mark = lex.Pos("mark");  // the lower-case spelling decides the primary class
  EXPECT_EQ(mark.primary, WordClass::kNoun);
  EXPECT_TRUE(mark.Has(WordClass::kProperNoun));
  EXPECT_TRUE(mark.common);
  const PosInfo berlin = lex.Pos("berlin");
  EXPECT_EQ(berlin.primary, WordClass::kProperNoun);
  EXPECT_FALSE(berlin.common);
  EXPECT_EQ(lex.Pos("the").primary, WordClass::kFunction);
  EXPECT_FALSE(lex.Pos("zzz").found);

  EXPECT_TRUE(lex.HasLemma("automobile", WordNetPos::kNoun));
  EXPECT_TRUE(lex.HasLemma("New_York", WordNetPos::kNoun));
  EXPECT_TRUE(lex.HasLemma("big", WordNetPos::kAdjective));  // "(a)" marker dropped
  EXPECT_FALSE(lex.HasLemma("car", WordNetPos::kVerb));
  EXPECT_EQ(lex.Lemma("mice", WordNetPos::kNoun), "mouse");
  EXPECT_EQ(lex.Lemma("went", WordNetPos::kVerb), "go");
  EXPECT_EQ(lex.Lemma("cars", WordNetPos::kNoun), "car");
  EXPECT_EQ(lex.Lemma("going", WordNetPos::kVerb), "go");
  EXPECT_EQ(lex.Lemma("bigger", WordNetPos::kAdjective), "big");
  EXPECT_EQ(lex.Lemma("Zebras", WordNetPos::kNoun), "zebras");
  EXPECT_THAT(lex.Synonyms("car"), ElementsAre("automobile"));
  EXPECT_THAT(lex.Synonyms("go"), ElementsAre("travel"));
  EXPECT_TRUE(lex.Synonyms("mouse").empty());

  EXPECT_EQ(lex.NameClasses("jose"), kMaleFirstName);  // accents stripped
  EXPECT_EQ(lex.NameClasses("paris"), kFemaleFirstName | kCity);
  EXPECT_EQ(lex.NameClasses("new york"), kCity);
  const text::Gazetteer& gazetteer = lex.gazetteer();
  EXPECT_EQ(gazetteer.Lookup("anna"), text::EntityKind::kPerson);
  EXPECT_EQ(gazetteer.Lookup("paris"), text::EntityKind::kPerson);  // a first name wins
  EXPECT_EQ(gazetteer.Lookup("berlin"), text::EntityKind::kPlace);
  EXPECT_EQ(gazetteer.Lookup("bavaria"), text::EntityKind::kPlace);
  EXPECT_EQ(gazetteer.Lookup("jordan"), text::EntityKind::kPlace);
  EXPECT_EQ(gazetteer.Lookup("mark"), std::nullopt);  // a common word
  EXPECT_EQ(gazetteer.Lookup("nowhere"), std::nullopt);
}

TEST(LexiconFixtureTest, LoadWritesTheCacheAndLaterLoadsMapIt) {
  FixtureDir fixture;
  auto first = Lexicons::Load(fixture.data_dir());
  ASSERT_THAT(first, IsOk());
  EXPECT_FALSE((*first)->from_cache());
  EXPECT_TRUE(fs::exists(fixture.dir() + "/compiled.bin"));
  // The same directory is loaded once per process.
  auto again = Lexicons::Load(fixture.data_dir());
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(first->get(), again->get());
  // Another spelling of the path is another cache entry: it maps the compiled file.
  auto mapped = Lexicons::Load(fixture.data_dir() + "/.");
  ASSERT_THAT(mapped, IsOk());
  EXPECT_TRUE((*mapped)->from_cache());
  EXPECT_EQ((*mapped)->Lemma("mice", WordNetPos::kNoun), "mouse");
  EXPECT_EQ((*mapped)->gazetteer().Lookup("berlin"), text::EntityKind::kPlace);
  // A changed SHA256SUMS (a reinstall) invalidates the cache.
  fixture.Write("SHA256SUMS", "fixture v2\n");
  fixture.Write("vader_lexicon.txt", "good\t2.5\t0.9\t[2, 2]\n");
  auto rebuilt = Lexicons::Load(fixture.data_dir() + "/./");
  ASSERT_THAT(rebuilt, IsOk());
  EXPECT_FALSE((*rebuilt)->from_cache());
  EXPECT_FLOAT_EQ(*(*rebuilt)->Valence("good"), 2.5f);
}

TEST(LexiconFixtureTest, CorruptCacheIsRebuilt) {
  FixtureDir fixture;
  ASSERT_THAT(Lexicons::Load(fixture.data_dir()), IsOk());
  // Truncate the cache behind a valid header: the next load must not trust it.
  const std::string cache = fixture.dir() + "/compiled.bin";
  fs::resize_file(cache, 64);
  auto reloaded = Lexicons::Load(fixture.data_dir() + "//");
  ASSERT_THAT(reloaded, IsOk());
  EXPECT_FALSE((*reloaded)->from_cache());
  EXPECT_FLOAT_EQ(*(*reloaded)->Valence("bad"), -2.5f);
}

TEST(LexiconFixtureTest, MissingFileNamesItAndTheSetupCommand) {
  FixtureDir fixture;
  fs::remove(fixture.dir() + "/wordnet/verb.exc");
  auto lexicons = Lexicons::Load(fixture.data_dir());
  EXPECT_THAT(lexicons, StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(lexicons.status().message(), HasSubstr("wordnet/verb.exc"));
  EXPECT_THAT(lexicons.status().message(), HasSubstr("scripts/setup"));
}

TEST(LexiconFixtureTest, EmptyDataDirectoryIsAClearError) {
  const engram::testing::TempDir dir("engram_lexicon_empty");
  const std::string& empty = dir.path();
  auto lexicons = Lexicons::Load(empty);
  EXPECT_THAT(lexicons, StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(lexicons.status().message(), HasSubstr(empty + "/lexicons/SHA256SUMS"));
}

// The installed lexicons (scripts/setup).
class InstalledLexiconTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = Lexicons::Load(core::ResolveDataDir(""));
    ASSERT_THAT(loaded, IsOk()) << "run scripts/setup to install the lexicons";
    lexicons_ = *loaded;
  }
  std::shared_ptr<const Lexicons> lexicons_;
};

TEST_F(InstalledLexiconTest, SizesAndLookups) {
  EXPECT_GT(lexicons_->vader_entries(), 7000u);
  EXPECT_GT(lexicons_->pos_entries(), 90000u);
  EXPECT_GT(lexicons_->wordnet_lemmas(), 140000u);
  EXPECT_GT(lexicons_->names(), 100000u);
  EXPECT_EQ(lexicons_->Lemma("went", WordNetPos::kVerb), "go");
  EXPECT_EQ(lexicons_->Lemma("children", WordNetPos::kNoun), "child");
  EXPECT_EQ(lexicons_->Lemma("studies", WordNetPos::kVerb), "study");
  EXPECT_THAT(lexicons_->Synonyms("car"), ::testing::Contains("automobile"));
  EXPECT_EQ(lexicons_->Pos("the").primary, WordClass::kFunction);
  EXPECT_EQ(lexicons_->Pos("dog").primary, WordClass::kNoun);
  const text::Gazetteer& gazetteer = lexicons_->gazetteer();
  EXPECT_EQ(gazetteer.Lookup("berlin"), text::EntityKind::kPlace);
  EXPECT_EQ(gazetteer.Lookup("munich"), text::EntityKind::kPlace);
  EXPECT_EQ(gazetteer.Lookup("germany"), text::EntityKind::kPlace);
  EXPECT_EQ(gazetteer.Lookup("melanie"), text::EntityKind::kPerson);
  EXPECT_EQ(gazetteer.Lookup("caroline"), text::EntityKind::kPerson);
  EXPECT_EQ(gazetteer.Lookup("will"), std::nullopt);
  EXPECT_EQ(gazetteer.Lookup("reading"), std::nullopt);
  for (const char* starter : {"both", "while", "utilize", "contacting"}) {
    EXPECT_TRUE(gazetteer.IsSentenceStarter(starter)) << starter;
  }
  // Nouns, adjectives and first names begin names too ("Apple Music", "New York", "Mark Twain").
  for (const char* name_start : {"apple", "new", "mark", "will", "yosemite", "berlin"}) {
    EXPECT_FALSE(gazetteer.IsSentenceStarter(name_start)) << name_start;
  }
  // Interjections and language / nationality adjectives name no one; names and places do.
  for (const char* word : {"hi", "wow", "thai", "english", "swedish", "italian"}) {
    EXPECT_TRUE(gazetteer.IsNonNameWord(word)) << word;
  }
  for (const char* word : {"caroline", "rose", "berlin", "germany", "siemens", "pixel"}) {
    EXPECT_FALSE(gazetteer.IsNonNameWord(word)) << word;
  }
}

// Reference compound scores of the published VADER on these sentences.
TEST_F(InstalledLexiconTest, VaderReferenceScores) {
  EXPECT_NEAR(SentimentCompound(*lexicons_, "good"), 0.4404, 1e-4);
  EXPECT_NEAR(SentimentCompound(*lexicons_, "not good"), -0.3412, 1e-4);
  EXPECT_NEAR(SentimentCompound(*lexicons_, "The weather is nice"), 0.4215, 1e-4);
  EXPECT_DOUBLE_EQ(SentimentCompound(*lexicons_, "The meeting is at 3pm."), 0.0);
  EXPECT_LT(SentimentCompound(*lexicons_, "I hate this terrible traffic"), -0.7);
  EXPECT_GT(SentimentCompound(*lexicons_, "very good!"),
            SentimentCompound(*lexicons_, "good"));
}

TEST_F(InstalledLexiconTest, SecondLoadMapsTheCompiledCache) {
  // A fresh spelling of the path maps compiled.bin again (what a new process does).
  auto mapped = Lexicons::Load(core::ResolveDataDir("") + "/.");
  ASSERT_THAT(mapped, IsOk());
  EXPECT_TRUE((*mapped)->from_cache());
  EXPECT_EQ((*mapped)->pos_entries(), lexicons_->pos_entries());
  EXPECT_EQ((*mapped)->wordnet_lemmas(), lexicons_->wordnet_lemmas());
}

}  // namespace
}  // namespace engram::lexicon
