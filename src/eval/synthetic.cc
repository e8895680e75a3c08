// Synthetic conversation text (see synthetic.h).
#include "eval/synthetic.h"

namespace engram::eval {
namespace {

constexpr std::string_view kNames[] = {
    "Maya",   "Caroline", "Melanie", "Jon",    "Gina",  "Tim",     "John",  "Maria",
    "Joanna", "Nate",     "Audrey",  "Andrew", "James", "Deborah", "Evan",  "Sam",
    "Priya",  "Omar",     "Lena",    "Kenji",  "Sofia", "Lucas",   "Aisha", "Daniel",
    "Elena",  "Marco",    "Hana",    "Ravi",   "Chloe", "Felix",   "Nora",  "Ivan",
    "Grace",  "Mateo",    "Zoe",     "Leo",    "Amara", "Theo",    "Ines",  "Yusuf"};

constexpr std::string_view kPlaces[] = {"Porto",
                                        "Lisbon",
                                        "Boston",
                                        "Tokyo",
                                        "Nairobi",
                                        "the lake",
                                        "the gym",
                                        "the library",
                                        "the farmers market",
                                        "the museum",
                                        "Denver",
                                        "Seattle",
                                        "the beach",
                                        "the mountains",
                                        "Madrid",
                                        "Berlin",
                                        "the park",
                                        "the office",
                                        "the bakery",
                                        "the community center",
                                        "Austin",
                                        "Toronto",
                                        "the old town",
                                        "the harbor",
                                        "the river trail",
                                        "Kyoto",
                                        "Cape Town",
                                        "the zoo",
                                        "the concert hall",
                                        "the campsite",
                                        "Vancouver",
                                        "Oslo",
                                        "the garden",
                                        "the stadium",
                                        "the animal shelter",
                                        "Chicago",
                                        "the art studio",
                                        "the cafe",
                                        "the airport",
                                        "the hospital"};

struct Activity {
  std::string_view past;  // "went hiking"
  std::string_view base;  // "go hiking"
};

constexpr Activity kActivities[] = {
    {"went hiking", "go hiking"},
    {"adopted a puppy", "adopt a puppy"},
    {"started a pottery class", "start a pottery class"},
    {"ran a half marathon", "run a half marathon"},
    {"painted a mural", "paint a mural"},
    {"baked sourdough bread", "bake sourdough bread"},
    {"joined a book club", "join a book club"},
    {"visited my grandparents", "visit the grandparents"},
    {"volunteered at a shelter", "volunteer at a shelter"},
    {"bought a used bike", "buy a used bike"},
    {"learned to play the guitar", "learn to play the guitar"},
    {"moved into a new apartment", "move into a new apartment"},
    {"lost my keys", "lose the keys"},
    {"watched a documentary about whales", "watch a documentary about whales"},
    {"went camping with friends", "go camping with friends"},
    {"signed up for a coding bootcamp", "sign up for a coding bootcamp"},
    {"planted tomatoes", "plant tomatoes"},
    {"went to a jazz concert", "go to a jazz concert"},
    {"finished reading a novel", "finish reading a novel"},
    {"took a cooking class", "take a cooking class"},
    {"got a promotion", "get a promotion"},
    {"celebrated a birthday", "celebrate a birthday"},
    {"went kayaking", "go kayaking"},
    {"fixed the old car", "fix the old car"},
    {"started a podcast", "start a podcast"},
    {"tried rock climbing", "try rock climbing"},
    {"organized a charity run", "organize a charity run"},
    {"went to a support group", "go to a support group"},
    {"sold some paintings", "sell some paintings"},
    {"repainted the kitchen", "repaint the kitchen"}};

constexpr std::string_view kTopics[] = {
    "photography",  "gardening",   "travel plans", "the new job",  "music",
    "family",       "coffee",      "books",        "old friends",  "the weather",
    "volunteering", "recipes",     "movies",       "running",      "art",
    "school",       "pets",        "the holidays", "startups",     "climate change",
    "yoga",         "board games", "history",      "architecture", "video games"};

constexpr std::string_view kFeelings[] = {
    "amazing",   "exhausting", "really fun",  "a bit scary",   "relaxing",
    "inspiring", "stressful",  "wonderful",   "surprising",    "so rewarding",
    "hilarious", "peaceful",   "challenging", "unforgettable", "cozy"};

constexpr std::string_view kTimes[] = {
    "yesterday",         "last weekend", "last week",      "two days ago",    "last month",
    "this morning",      "last summer",  "on Sunday",      "a few weeks ago", "last night",
    "over the holidays", "in March",     "on my birthday", "last spring",     "recently"};

constexpr std::string_view kRelations[] = {"sister",  "brother", "mom",      "dad",  "friend",
                                           "partner", "cousin",  "neighbor", "boss", "roommate"};

constexpr std::string_view kReplies[] = {
    "That sounds great!", "Wow, really?",  "I love that.", "Tell me more.",  "Good for you!",
    "That is so cool.",   "Oh no, sorry!", "Same here.",   "I can imagine.", "Thanks for sharing!"};

}  // namespace

std::uint64_t SyntheticText::Next() {
  // SplitMix64 (Steele, Lea and Flood 2014).
  state_ += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::size_t SyntheticText::Below(std::size_t n) {
  // 53 random bits as a fraction in [0, 1); the bias is negligible for list-sized n.
  const double u = static_cast<double>(Next() >> 11) / 9007199254740992.0;
  return static_cast<std::size_t>(u * static_cast<double>(n));
}

std::size_t SyntheticText::Skewed(std::size_t n) {
  const double u = static_cast<double>(Next() >> 11) / 9007199254740992.0;
  return static_cast<std::size_t>(u * u * static_cast<double>(n));
}

std::string SyntheticText::Sentence() {
  const std::string name(Pick(kNames));
  const std::string place(Pick(kPlaces));
  const Activity& activity = kActivities[Skewed(std::size(kActivities))];
  const std::string time(Pick(kTimes, /*skewed=*/false));
  const std::string feeling(Pick(kFeelings));
  const std::string topic(Pick(kTopics));
  const std::string relation(Pick(kRelations));
  switch (Below(12)) {
    case 0:
      return "I " + std::string(activity.past) + " in " + place + " " + time + ".";
    case 1:
      return name + " " + std::string(activity.past) + " " + time + ", and it was " + feeling + ".";
    case 2:
      return "My " + relation + " " + std::string(activity.past) + " near " + place + " " + time +
             ". It was " + feeling + ".";
    case 3:
      return "We talked about " + topic + " for hours; " + name + " thinks " +
             std::string(Pick(kTopics)) + " is " + feeling + ".";
    case 4:
      return std::string(Pick(kReplies, false)) + " What made you choose " + place + "?";
    case 5:
      return "Honestly " + topic + " has been " + feeling + " lately. " + name +
             " keeps asking me about it.";
    case 6:
      return std::string(Pick(kReplies, false)) + " I " + std::string(activity.past) + " " + time +
             " too, with my " + relation + ".";
    case 7:
      return "Did I tell you that " + name + " " + std::string(activity.past) + " in " + place +
             "? I was so proud.";
    case 8:
      return "I'm thinking about going back to " + place + " to " + std::string(activity.base) +
             " again.";
    case 9:
      return "Thanks! I'll tell " + name + " about " + topic + " when we meet at " + place + ".";
    case 10:
      return "It was " + feeling + ". " + name + " and my " + relation + " " +
             std::string(activity.past) + " " + time + ".";
    default:
      return "Lately I've been into " + topic + " and " + std::string(Pick(kTopics)) +
             ", mostly because of " + name + ".";
  }
}

std::string SyntheticText::Question() {
  const std::string name(Pick(kNames));
  const Activity& activity = kActivities[Skewed(std::size(kActivities))];
  switch (Below(6)) {
    case 0:
      return "When did " + name + " " + std::string(activity.base) + "?";
    case 1:
      return "Where did " + name + " " + std::string(activity.base) + "?";
    case 2:
      return "What does " + name + " think about " + std::string(Pick(kTopics)) + "?";
    case 3:
      return "Who " + std::string(activity.past) + " in " + std::string(Pick(kPlaces)) + "?";
    case 4:
      return "How did " + name + " feel after they " + std::string(activity.past) + "?";
    default:
      return "What did " + name + "'s " + std::string(Pick(kRelations)) + " do at " +
             std::string(Pick(kPlaces)) + "?";
  }
}

std::vector<Turn> SyntheticText::Session(std::size_t turns, const std::string& session_id,
                                         Timestamp start) {
  const std::string first(Pick(kNames, false));
  std::string second(Pick(kNames, false));
  if (second == first) second = "Alex";
  std::vector<Turn> session;
  session.reserve(turns);
  for (std::size_t turn_idx = 0; turn_idx < turns; ++turn_idx) {
    Turn turn;
    const bool first_speaks = turn_idx % 2 == 0;
    turn.role = first_speaks ? Role::kUser : Role::kAssistant;
    turn.speaker = first_speaks ? first : second;
    turn.text = Sentence();
    if (Below(3) == 0) turn.text += " " + Sentence();
    turn.session_id = session_id;
    turn.event_time = Timestamp{start.micros + static_cast<std::int64_t>(turn_idx) * 60'000'000};
    turn.metadata_json = "{\"turn_index\":" + std::to_string(turn_idx + 1) + "}";
    session.push_back(std::move(turn));
  }
  return session;
}

}  // namespace engram::eval
