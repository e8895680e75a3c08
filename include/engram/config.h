// Every tunable constant of engram, with its default. Some defaults are the papers' values
// (DESIGN §12), others were measured on the development files or chosen; docs/CONFIG.md says which
// for each key.
//
// A TOML file can override any of them (EngineOptions::config_file); sections and keys mirror the
// struct names: `[bm25] k1 = 1.2`. Unknown keys are an error, so a typo never goes unnoticed.
// Implemented by src/config (engram_config), whose key table (config_table.h) holds every key's
// type, bounds and documentation; docs/CONFIG.md's reference is generated from it.
#ifndef ENGRAM_CONFIG_H_
#define ENGRAM_CONFIG_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram {

struct Bm25Config {
  double k1 = 1.2;  // "k1" in Robertson's Okapi BM25: term-frequency saturation
  double b = 0.75;  // "b": document-length normalisation
  // Stem index and query terms with Snowball english (Porter2). false: both the turns' terms and
  // the question's terms are the normalised words as written (the flat baseline of `engram bench
  // --flat`). Default: true.
  bool stem = true;
};

struct RecallConfig {
  std::size_t token_budget = 2000;  // default budget of the packed context, in tokens
  std::size_t max_items = 10;       // default number of items returned
  // "k" of weighted reciprocal rank fusion (Eywa eq. 2 uses 20; 15 measured on both dev files
  // with the vector route's turn-before score, docs/BENCHMARKS.md "Fusion re-tuned").
  double rrf_k = 15;
  std::size_t route_candidates = 100;  // candidates each route passes to fusion
  // Weight of each route in fusion, by route name ("bm25", ...). Missing routes weigh 1.0; a
  // route of weight 0 is not run (ablations). The planner may replace them per question shape.
  // "vector" 1.0 since the route scores a turn with the turn before it ([recall]
  // vector_context): LoCoMo and LongMemEval dev measured in docs/BENCHMARKS.md ("A turn's vector
  // with its predecessor's"; 0.5 was chosen for turns scored alone, hybrid section). "entity"
  // and "facts" 1.0:
  // weights 0.25-2 measure the same on LoCoMo dev (the routes rarely change the top 30); with
  // the entity route LongMemEval's turn all@10 rises, the fact route alone changes nothing
  // measurable (docs/BENCHMARKS.md, entity and fact routes).
  // "keyword" 0 (the keyword graph route, KeyMem Path B, is not run by default): on LoCoMo dev
  // weights 0.5 and 1.0 lower R@5 / R@10 / MRR@30 a little and gain nothing at R@30
  // (docs/BENCHMARKS.md, keyword graph route); set it above 0 to add the route.
  std::map<std::string, double> route_weights = {
      {"bm25", 1.0},  {"entity", 1.0},  {"facts", 1.0},    {"fragment", 1.0}, {"keyword", 0.0},
      {"scene", 0.0}, {"session", 0.5}, {"temporal", 1.0}, {"vector", 1.0}};
  // keyword route (KeyMem Path B): a keyword matched only through a WordNet synonym contributes
  // this × the synonym's idf (the keyword's own term contributes its idf). 0 = synonyms add
  // nothing to the score (a synonym still links its keyword for the intersection filter).
  double keyword_synonym_weight = 0.5;
  // fragment route: consecutive turns of a session scored together as one window (KeyMem Path C).
  std::size_t fragment_window = 3;
  // fragment route: a turn's score is its best window's score + this × its own BM25 score, so
  // the turns that match rank first within a window and the others still come in.
  double fragment_own_weight = 0.3;
  // fragment route: soft term matches (SoftTF-IDF, KeyMem Path C; read/turn_layout.h SoftMatch):
  // an index term whose Jaro–Winkler similarity to a query term is at least this counts as that
  // term, scaled by the similarity ("recieved" finds "received", "writer" finds "write"). 0 =
  // exact terms only. 0.95: LoCoMo dev R@30 0.886 -> 0.890, MRR@30 0.627 -> 0.629; LongMemEval
  // session all@5 unchanged, ndcg_any@5 0.958 -> 0.951 (docs/BENCHMARKS.md, soft matches).
  double fragment_soft_match = 0.95;
  // fragment route: word-vector soft matches (read/word_neighbours.h): the word_vector_neighbours
  // index terms closest to a query term by GloVe word vectors (scripts/fetch-models), when their
  // cosine similarity is at least this, count as that term, scaled by the similarity ("dog"
  // for "pet"). 0 = off. The vectors load on the first recall that needs them (~0.3 s); when
  // they are not installed, recall runs without these matches and a diagnostics warning says
  // so (installed but damaged vectors are an error). A neighbour held by more than 1 % of the
  // searched turns is left out (read/word_neighbours.h: its idf is low and its postings are
  // long). 0.6 (weight 0.3), on LoCoMo dev: evidence all / any 0.855 / 0.925 -> 0.858 / 0.930,
  // multi-hop all 0.415 -> 0.423, on half B (conv-42/43) 0.835 / 0.916 -> 0.837 /
  // 0.924, MRR@30 0.638 -> 0.642; LongMemEval dev unchanged; recall CPU at 100,000 synthetic
  // turns 1.0x off's (docs/BENCHMARKS.md, word vectors bounded by document frequency).
  double word_vector_match = 0.6;
  std::size_t word_vector_neighbours = 3;
  // A word-vector neighbour counts as its query term scaled by its cosine × this (1 = by the
  // cosine alone). In (0, 1]. With word_vector_match 0.6, weight 0.3 gained on LoCoMo dev
  // (evidence any 0.922 -> 0.926, multi-hop all 0.408 -> 0.430, R@30 0.890 -> 0.895) and lost
  // nothing on LongMemEval dev; weights 0.5 and 1 cost its session all@5 (0.959 -> 0.939)
  // (docs/BENCHMARKS.md, issue 22's ablation).
  double word_vector_weight = 0.3;
  // Vector route: a turn is scored by the cosine of the query with its vector plus this × the
  // vector of the turn before it in its session (both as stored, normalised; the sum
  // normalised), so a short reply is found by what it answers ("Yeah, I play clarinet!" after
  // "Do you play any instruments?"). 0 = each turn by its own vector. Computed at recall time
  // over the route's candidates and the turns after them: nothing is re-embedded, and the
  // stored vectors (DMF divergence reads them) stay each turn's own (docs/BENCHMARKS.md, "A
  // turn's vector with its predecessor's").
  double vector_context = 1.0;
  // true: word-vector neighbours only for the query terms the searched scopes' vocabulary lacks
  // (a word the memory holds is matched as itself). false = for every query term. Measured no
  // gain on LoCoMo dev (the questions' words are mostly in their conversation).
  bool word_vector_absent_only = false;
  // scene route (read/scene_route.h, EverMemOS §3.5): over a consolidated scope, the best
  // scene_select scenes by the maximum relevance of their episodes (the paper's N = 10), then
  // the best scene_episodes of their episodes (the paper's K = 10), each scored its own
  // relevance + scene_member_weight x its scene's score.
  std::size_t scene_select = 10;
  std::size_t scene_episodes = 10;
  double scene_member_weight = 0.5;
  // session route: turns proposed per session at most (0 = all of them).
  std::size_t session_turns = 0;
  // Neighbour expansion after fusion: each of the best `neighbour_seeds` fused candidates gives
  // the turns within `neighbour_radius` of it in its session a bonus of
  //   neighbour_weight × neighbour_decay^(distance - 1) × the seed's fused score
  // (the largest such bonus counts), added to their score; turns no route found join the list.
  // neighbour_weight = 0 switches the stage off.
  std::size_t neighbour_seeds = 10;
  std::size_t neighbour_radius = 2;
  double neighbour_weight = 0.2;
  double neighbour_decay = 0.5;
  // Person adjustment: turns spoken by a speaker the question names are multiplied by this
  // (1 = off). Eywa demotes facts about someone else (×0.05); for raw turns the other speaker
  // often holds the evidence, so engram only lifts the asked person's turns a little.
  // Answerability (DMF §9.3): a turn that matches the question because it asks about the
  // topic holds the topic, not the answer. Its score is multiplied by 1 - question_penalty ×
  // its share: the share of its query-term occurrences that lie in its sentences ending with
  // "?" (the echo share; the share of its words in such sentences when it holds no query term).
  // The next turn of the session, the reply, gets the neighbour bonus with
  // neighbour_answer_weight instead of neighbour_weight when that share is at least 0.5. Both
  // only between peers (the next turn has the same role): a user's question to an assistant
  // often carries the user's own facts, and the assistant's reply is advice. 0.2 / 0.8: LoCoMo
  // dev MRR@30 0.618 at 0.3 / 0.5, 0.629 here; LongMemEval (user / assistant) unchanged
  // (docs/BENCHMARKS.md, read path). question_penalty 0 = off.
  double question_penalty = 0.2;
  double neighbour_answer_weight = 0.8;
  // × on turns spoken by a speaker the question names (1.5: measured with rrf_k 15).
  double person_boost = 1.5;
  // The same adjustment for a question in the first person ("what did I buy?"), on the user's
  // turns when the memory also holds turns of other roles (an assistant's answers); 1 = off.
  // 2.0: measured on the LongMemEval dev file (docs/BENCHMARKS.md, read path).
  double first_person_boost = 2.0;
  // Packing: a turn too long for what is left of the token budget is packed as an excerpt of at
  // most this many bytes around the query terms it matches (marked, with its byte offsets),
  // instead of being dropped. In [64, 65536].
  std::size_t excerpt_bytes = 1024;
  // Chat context mode (RecallOptions::mode): the profile and foresight lines take at most this
  // share of the token budget; the evidence gets what they leave. In [0.05, 0.9].
  double chat_share = 0.25;
  // Value packing (issue 22; read/packing.h; RecallOptions::pack_by_value). With pack_by_value
  // the context is chosen by value under the token budget instead of by count: only items
  // scoring at least pack_floor × the best item's score are candidates; of those, the one with
  // the most value per token is packed first, value = its score / (1 + session discount × the
  // items already packed from its session) + pack_adjacent_share × the score of a packed turn
  // it directly follows or precedes in its session, tokens counted as at least
  // pack_min_tokens; at most pack_max_items (k when the caller gives one). The session discount
  // is 0 unless the planner's rule for the question's shape sets one (`session_discount` in
  // [planner.<shape>]): breadth questions (lists, counts) spread over sessions. false = items
  // in rank order while they fit, at most max_items.
  bool pack_by_value = true;
  std::size_t pack_max_items = 40;
  double pack_floor = 0.22;
  std::size_t pack_min_tokens = 48;
  double pack_adjacent_share = 0.0;
  // Value packing: an item's value (score relative to the best item's, after the session
  // discount) is raised to this power before it is divided by its tokens, so above 1 a strong
  // item's score counts for more than a short line's length. 1 = value per token as it is.
  // 2: LoCoMo dev evidence all / any 0.853 / 0.922 -> 0.855 / 0.925 (multi-hop all 0.408 ->
  // 0.415) at +5 tokens; LongMemEval dev unchanged (docs/BENCHMARKS.md, issue 22's ablation).
  double pack_score_power = 2.0;
  // Answer type (DMF §9.3 answerability): when the question asks for a time, number, place or
  // person ("when", "how many", "where", "who"), the turns among the best answer_type_depth
  // candidates that hold one are multiplied by answer_type_boost (1 = off). 1.3: LoCoMo dev
  // MRR@30 0.584 -> 0.599, no category lower, 1.5 the same (docs/BENCHMARKS.md, read path).
  double answer_type_boost = 1.3;
  std::size_t answer_type_depth = 50;
  // Coverage (Lucene's classic coord factor, weighted by idf): the best answer_type_depth turns
  // get × (1 + coverage_weight × the share of the question's terms' idf that the turn's own
  // terms hold), so a turn holding every asked-about word rises above one that repeats a single
  // word. 0 = off. 0.3 with pack_floor 0.22: measured on both dev files (docs/BENCHMARKS.md,
  // "Coverage").
  double coverage_weight = 0.3;
  // Current state (read/current_state.h): × on the score of a turn every claim of which has been
  // superseded, in a recall about the present (not as of a past time, not a past-tense question);
  // the current claim's evidence turn joins the items with the stale turn's score if no route
  // proposed it. 1 = marked only. Measured on both dev files (docs/BENCHMARKS.md, "Current
  // state").
  double superseded_factor = 0.5;
  // Frame words (read/query_frame.h: "how many months have passed since", "when did I last",
  // the words of a resolved time expression) are left out of the lexical routes' query terms:
  // the shape, the answer type and the temporal route use them, and a turn that merely says
  // "last month" is no evidence. false = they are matched like any other word.
  bool drop_frame_words = true;
  // The temporal route also proposes the turns that name a time inside a window of the
  // question's time constraints ("we fly out on 17 October" for "What is planned for 17 October
  // 2024?"), not only those said in it, scored alike (own BM25). false = by event time only.
  // Measured on both dev files (docs/BENCHMARKS.md, "Dates inside turns").
  bool temporal_mentions = false;
  // How the best candidates are ordered after fusion and the adjustments: "fusion" keeps the
  // adjusted fused order; "learned" re-orders the best ranker_depth of them by the learned
  // ranker (read/learned_ranker.h), a tree ensemble over their ranking features trained on the
  // dev files by bench/train_ranker.py, for the planner's routes: a call that names its own routes
  // or route weights (RecallOptions) gets their fused order. When the model cannot be used (missing, corrupt, another
  // feature set) recall keeps the fused order and says so in the diagnostics' warnings.
  std::string ranker = "learned";
  // The learned ranker's model file; "" = the model built into engram (src/read/ranker/).
  std::string ranker_model;
  // The learned ranker re-orders this many of the best candidates.
  std::size_t ranker_depth = 100;
  // With a time answer type, a date counts only on the side of its turn's time that the
  // question's tense asks for (read/adjust.h: a past question is not answered by "next month").
  // false = every date counts.
  bool answer_type_tense = true;
  // Entity bridge (read/bridge.h): the rare entities (mentioned by 2 to bridge_max_turns turns,
  // no speaker) that the best bridge_seeds candidates name give the other turns naming them
  // + bridge_weight × the seed's score. bridge_weight 0 = off. 0.15 was measured with RRF k 20
  // (docs/BENCHMARKS.md, read path: 0.3 cost LoCoMo's MRR then); with k 15 LoCoMo dev is flat
  // from 0.15 to 0.5 and 0.3 brings LongMemEval's bridged sessions into the top 5
  // (docs/BENCHMARKS.md, "Fusion re-tuned").
  double bridge_weight = 0.3;
  std::size_t bridge_seeds = 3;
  std::size_t bridge_max_turns = 5;
  // Follow-up recall (read/hop.h), on for the shapes whose [planner.<shape>] rule sets `hop`:
  // the first hop_seeds turns' vectors and the question's lead a second vector search, whose
  // best hop_candidates hits per scope get + hop × the best score × their relative cosine.
  std::size_t hop_seeds = 3;
  std::size_t hop_candidates = 20;
  // Entity route (read/entity_route.h): a turn's score is its entity weights + this × its own
  // BM25 score for the question's other words, so among turns naming the asked entities those
  // that also match the question come first.
  double entity_lexical_weight = 0.1;
  // Fact route (read/fact_route.h): a fact's term overlap is multiplied by facts_asked_subject
  // when its subject is the person asked about, by facts_other_subject when the question names
  // someone else (or is in the first person) and the subject is not them, and by
  // facts_untimed_when for a "when" question about a fact with no time.
  double facts_asked_subject = 2.0;
  double facts_other_subject = 0.5;
  double facts_untimed_when = 0.5;
  // The optional LLM loop of recall (engine/llm_recall.h, docs/LLM_RECALL.md), off by default:
  // an OpenAI-compatible /chat/completions endpoint judges whether the packed context answers
  // the question and, when not, proposes sub-questions and answer keywords that are recalled
  // too (and, with llm_rerank_top > 0, reorders the best items). The question and the packed
  // context are sent to the endpoint. llm_model is required when it is on; llm_api_key_env
  // names the environment variable holding the key ("" = no key). Every failure (endpoint down,
  // timeout, malformed reply) leaves the deterministic result, with a warning.
  bool llm_loop = false;
  std::string llm_base_url = "http://127.0.0.1:11434/v1";
  std::string llm_model;
  std::string llm_api_key_env;
  std::size_t llm_timeout_ms = 30000;
  // Completion length limit of each request, in tokens.
  std::size_t llm_max_tokens = 512;
  // No request when the read path's own sufficiency verdict is "sufficient".
  bool llm_skip_sufficient = true;
  // Check-and-recall rounds at most; each round is one request.
  std::size_t llm_rounds = 1;
  // Sub-questions and answer keywords one reply may give at most (a reply with more is refused).
  std::size_t llm_max_queries = 3;
  std::size_t llm_max_keywords = 8;
  // Items the model may reorder (one more request); 0 = no rerank.
  std::size_t llm_rerank_top = 0;
};

// [planner]: the rule table from the query frame's shape to route weights and the context
// budget (DESIGN §5.2, Eywa Table 3). Each shape's entries replace [recall.route_weights] for the
// routes they name; "budget_scale" multiplies the token budget of questions of that shape.
struct PlannerConfig {
  bool enabled = true;  // false: every question uses [recall] as it is
  // shape name (query_frame.h: factoid, list, count, ...) -> key -> value.
  std::map<std::string, std::map<std::string, double>> shapes = {
      // A list or a count gathers items from several sessions: value packing discounts a
      // session's further items (docs/BENCHMARKS.md, evidence in the context).
      {"list", {{"fragment", 1.5}, {"session", 1.0}, {"session_discount", 0.5}}},
      // A count also needs every instance found: the follow-up recall (read/hop.h) looks for
      // turns like the best ones (docs/BENCHMARKS.md, "Follow-up recall").
      {"count", {{"fragment", 1.5}, {"session", 1.0}, {"session_discount", 0.5}, {"hop", 0.3}}},
      {"summary", {{"fragment", 1.5}, {"session", 1.5}, {"budget_scale", 1.5}}},
      {"inference", {{"fragment", 1.5}, {"session", 1.0}}},
      {"when", {{"temporal", 2.0}}},
      {"current_state", {{"temporal", 2.0}}},
      // A request for a recommendation rarely shares words with the preferences it should
      // follow ("accessories for my photography setup" / "my Sony A7R IV"): meaning decides.
      {"recommendation", {{"vector", 1.5}}},
  };
};

// [embedder]: which sentence embedder writes and reads vectors (src/embed). The store records the
// embedder's model id; opening a store with a different one is an error (`engram reembed`).
struct EmbedderConfig {
  // "use-lite" (built-in encoder, default), "openai" (an OpenAI-compatible /v1/embeddings
  // server), "hashing" (feature hashing; tests), "none" (no vectors, no vector route).
  std::string kind = "use-lite";
  // use-lite: threads one Embed call spreads its texts over (DESIGN's machine has 2 cores).
  std::size_t threads = 2;
  // use-lite: "int8" (dense layers on int8 weights and activations with exact integer sums: the
  // same vectors on every CPU, about 4x faster) or "float32" (the reference forward pass).
  std::string precision = "int8";
  // use-lite: check the model files against their SHA256SUMS when loading (about 0.1 s).
  bool verify_checksums = true;
  // openai: endpoint prefix (requests go to base_url + "/embeddings"), model name and vector
  // length; model and dimension are required with kind "openai".
  std::string base_url = "http://127.0.0.1:11434/v1";
  std::string model;
  std::size_t dimension = 0;
  // openai: name of the environment variable holding the API key. "" = $ENGRAM_EMBEDDINGS_API_KEY,
  // else $OPENAI_API_KEY, else no key. The key itself never goes in the file.
  std::string api_key_env;
  // openai: per-request timeout, retries after 429/5xx/timeouts, texts per request.
  std::size_t timeout_ms = 30000;
  std::size_t max_retries = 3;
  std::size_t batch_size = 64;
  // hashing: vector length.
  std::size_t hashing_dimension = 256;
};

// [vector]: the vector index projection (src/index/vector).
struct VectorConfig {
  // Scopes with at most this many vectors are searched exactly; larger ones through HNSW.
  std::size_t exact_threshold = 20000;
  // HNSW graph: links per node ("M"), candidate list while inserting ("efConstruction") and
  // while searching ("ef"). See src/index/vector/hnsw_index.h for the measured recall.
  std::size_t hnsw_max_neighbors = 32;
  std::size_t hnsw_construction_expansion = 200;
  std::size_t hnsw_search_expansion = 256;
};

// [write]: the deterministic write path after capture (DESIGN §4 steps 2-5, src/write).
struct WriteConfig {
  bool signals = true;   // Tier-0 signals (the analysis row), time anchors and at_time edges
  bool entities = true;  // entity mentions, resolution and same_as proposals
  // entities: pronouns, "there" and "that day" resolved to entities and times (KeyMem §3.5).
  bool references = true;
  // entities: a person / place / organisation mention below this confidence (text/signals.h: 0.3
  // capitalisation alone, 0.5-0.7 a context cue, 0.8-0.9 gazetteer, title or suffix) stays a
  // signal and makes no entity, in [0, 1].
  double min_entity_confidence = 0.5;
  // entities: Jaro–Winkler similarity at or above which a mention is the existing entity
  // (WorldDB §3.1 tier 2), in (0, 1].
  double resolve_accept = 0.95;
  // entities: Jaro–Winkler similarity at or above which (below resolve_accept), or an equal
  // phonetic key, makes a new entity with a pending same_as proposal to the existing one, in
  // (0, resolve_accept].
  double resolve_propose = 0.85;
  // entities, with an embedder: cosine of name embeddings at or above which a mention no string
  // tier matched or proposed makes a new entity with a pending same_as proposal to the nearest
  // entity of its kind (WorldDB §3.1 tier 4). It never merges. USE-lite separates names poorly:
  // distinct names reach 0.79 ("laura" / "maria"), true aliases range from 0.28 ("nyu" / "new
  // york university") to 0.89 ("new york" / "new york city"), hence the high default; a stronger
  // [embedder] makes the tier worth a lower value. 0 switches the tier off; in [0, 1].
  double resolve_embed_propose = 0.85;
  // DMF content signals: entity count saturation E_cap (DMF eq. 4: min(E, E_cap) / E_cap), >= 1.
  std::size_t entity_cap = 5;
  // references: a binding lives this many turns after its last mention (KeyMem's TTL), >= 1.
  std::size_t reference_ttl_turns = 3;
  // references: focus stack sizes (KeyMem §3.5: entity stack 10, location stack 4, time stack
  // 4); the oldest item falls off a full stack. The speaker stack has the person stack's size.
  std::size_t reference_person_stack = 10;
  std::size_t reference_place_stack = 4;
  std::size_t reference_time_stack = 4;
  // DMF content signals: semantic divergence is 1 - cosine between a turn's embedding and the
  // centroid of the scope's previous W turns' embeddings ("W" in DMF eq. 7), whatever batch they
  // came in; 0 without an embedder. In [1, 1000].
  std::size_t divergence_window = 5;
  // signals: a turn yields at most this many Tier-0 signals (the first ones in text order; the
  // rest of the turn is stored and indexed but derives nothing), so the analysis row, the time
  // anchors and the time one turn's analysis costs are bounded. In [1, 100000]. Default: 500.
  std::size_t max_signals_per_turn = 500;
  // Back-pressure: a write that would be acknowledged before its derivation (RememberWait other
  // than kDerived) is refused with kUnavailable and a retry-after hint while this many turns or
  // more await derivation, so the backlog stays below this plus one batch per concurrent writer
  // (HTTP 503 with Retry-After). 0 = unbounded. In [0, 1e9]. Default: 100,000 turns, about 7 to
  // 14 minutes of derivation at the single worker's 120 to 250 turns/s.
  std::size_t max_pending_turns = 100'000;
  bool facts = true;     // rule-based facts, validation and reconciliation
  // facts: V_support of the validator (Eywa §4.3), the least fraction of a candidate object's
  // content words that must occur in its source sentence, in [0, 1].
  double fact_min_support = 0.6;
  // facts: validity of a plan or temporary state whose turn gives no end, in days (>= 1).
  std::size_t foresight_days = 30;
  // facts: the optional LLM extractor (an OpenAI-compatible /chat/completions endpoint), off by
  // default; its candidates pass the same validator. llm_model is required when it is on;
  // llm_api_key_env names the environment variable holding the key ("" = no key). A turn whose
  // request fails keeps its rule facts (the failure is counted, the write goes on).
  bool llm_facts = false;
  std::string llm_base_url = "http://127.0.0.1:11434/v1";
  std::string llm_model;
  std::string llm_api_key_env;
  std::size_t llm_timeout_ms = 60000;
};

// [consolidate]: episodes, scenes and profiles built over a scope's stored turns and facts
// (EverMemOS §3.3-3.4, DESIGN §4 step 6, src/consolidate). Engine::Consolidate runs it.
struct ConsolidateConfig {
  // Engine::Remember consolidates the scope itself whenever a batch crosses a multiple of this
  // many turns (KeyMem consolidates every 10); 0 = only explicit Consolidate calls. Default: 0.
  std::size_t every_turns = 0;
  // episodes: a gap of more than this many minutes between consecutive turns starts a new
  // episode (a change of session always does). In [1, 5256000]. Default: 240.
  std::size_t episode_gap_minutes = 240;
  // episodes: a topic shift may start a new episode only after this many turns, >= 1. Default: 4.
  std::size_t episode_min_turns = 4;
  // episodes: an episode holds at most this many turns, >= 1. Default: 40.
  std::size_t episode_max_turns = 40;
  // episodes: a topic shift needs the turn's stored divergence (DMF eq. 7, 1 - cosine to the
  // previous turns' centroid) at or above this, in [0, 2] (ignored when the store has no
  // embedder). Default: 0.75.
  double topic_divergence = 0.75;
  // episodes: ... and at most this share of the turn's content terms among the terms of the
  // episode's last topic_window turns (lexical shift), in [0, 1]. Default: 0.
  double topic_overlap = 0.0;
  // episodes: how many of the episode's latest turns the lexical shift compares with, >= 1.
  std::size_t topic_window = 4;
  // episodes: a turn with fewer content terms than this never starts a topic (too short to tell),
  // >= 1. Default: 4.
  std::size_t topic_min_terms = 4;
  // episodes: sentences in an episode's extractive narrative, >= 1. Default: 6.
  std::size_t narrative_sentences = 6;
  // scenes: an episode joins the scene whose centroid is most similar when the cosine is at
  // least this ("tau" in EverMemOS Table 6: 0.70 for LoCoMo, 0.50 for LongMemEval), in [-1, 1].
  double scene_threshold = 0.70;
  // scenes: ... and the scene's member closest in time is at most this many days away
  // (EverMemOS Table 6: 7 for LoCoMo, 30 for LongMemEval), >= 1.
  std::size_t scene_max_gap_days = 7;
  // scenes: keywords kept in a scene's vocabulary, >= 1. Default: 12.
  std::size_t scene_keywords = 12;
  // scenes: sentences in a scene's extractive summary, >= 1. Default: 5.
  std::size_t scene_summary_sentences = 5;
};

// [store]: connection settings of a PostgreSQL store (a postgresql:// store URL); the SQLite
// store ignores them (src/store/postgres).
struct StoreConfig {
  // Connections one engine keeps to the server at most: one writer, the rest for reads, which
  // wait for a free one when all are busy. In [2, 1000]. Default: 4.
  std::size_t pool_size = 4;
  // Seconds a connection attempt may take before the store is reported unreachable, in
  // [1, 3600] (libpq's connect_timeout; 1 counts as 2). Default: 10.
  std::size_t connect_timeout_seconds = 10;
  // The server cancels any statement running longer than this, in milliseconds (0 = never); it
  // also bounds how long a write waits for another server's writer. Default: 30000.
  std::size_t statement_timeout_ms = 30000;
  // How new turn embeddings are stored: "float32" (4 bytes a value), "float16" (IEEE half,
  // round to nearest even: 2 bytes a value) or "int8" (a signed byte a value and a float32
  // scale a vector); scores are computed in float32 over the decoded values. A store may hold
  // every form (read by their length). Default: "int8" (every dev metric within 0.001 of
  // float16, docs/BENCHMARKS.md "int8 vectors"; a 512-d vector takes 517 bytes).
  std::string vector_precision = "int8";
  // `engram serve` follows the store's journal so its projections take in other servers' writes
  // before a recall asks: woken by PostgreSQL's NOTIFY at each commit, and at least this often
  // when no notification comes (a SQLite store is polled every 100 ms), in milliseconds, in
  // [10, 3600000].
  // Default: 1000.
  std::size_t follow_poll_ms = 1000;
};

// [active]: DMF's active memory of a run (DMF §5-8, DESIGN §6, src/lifecycle): each turn's
// survival score, its decay over the interaction count, tiers, hard-kill and budget pruning, and
// the token budgets of Engine::Context. Defaults are DMF's (DESIGN §12, the paper's Tables 1-4
// and its reference configuration).
struct ActiveConfig {
  // Content channel (DMF eq. 8): z_content = α ID + β |S| + γ E_norm + δ D.
  double weight_density = 3.0;      // α: information density
  double weight_sentiment = 0.2;    // β: sentiment magnitude |VADER compound|
  double weight_entities = 2.0;     // γ: normalised entity count
  double weight_divergence = -2.5;  // δ: semantic divergence (negative: a penalty)
  double midpoint = 1.5;            // x0: Ω = σ(z_total − x0) (DMF eq. 12)
  // Operational channel (DMF eq. 9): λ_op × Σ η_signal over the turn's conversational signals.
  double operational_scale = 0.75;  // λ_op
  double eta_constraint = 1.20;
  double eta_preference = 0.70;
  double eta_current_state = 0.60;
  double eta_correction = 0.90;
  double eta_replacement = 0.50;
  double eta_past_state = 0.0;
  // Provenance channel (DMF eq. 10, Table 4): flags the caller puts in a turn's metadata
  // ("provenance": ["user_correction", ...]); corrected_by_user is subtracted.
  double boost_user_correction = 0.15;
  double boost_preference_update = 0.10;
  double boost_constraint_source = 0.10;
  double penalty_corrected_by_user = 0.0;
  // Social floor (DMF eq. 29): an ack-like turn (at most 6 words with a social keyword, the
  // write path's ack_like signal) whose Ω is below social_activation gets at least social_floor.
  double social_activation = 0.40;
  double social_floor = 0.25;
  // Decay (DMF eq. 18): Ω_eff = Ω exp(−λ (1 − η Ω) Δn), Δn in interactions.
  double decay_rate = 0.035;  // λ
  double inertia = 0.5;       // η, in [0, 1)
  // Tiers (DMF eq. 20): healthy above tier_healthy, critical at or below tier_critical.
  double tier_healthy = 0.75;   // τ_H
  double tier_critical = 0.3;   // τ_C
  // Hard-kill (DMF eq. 21): every kill_every_turns interactions, turns with Ω_eff below
  // kill_floor leave the window.
  double kill_floor = 0.05;           // Ω_kill
  std::size_t kill_every_turns = 5;   // DMF's reference configuration: pruning_frequency_x
  // Budget pruning (DMF eq. 23-25): S_prune = Ω_eff + bonuses − supersession penalty.
  double bonus_constraint = 0.20;
  double bonus_preference = 0.10;
  double bonus_current_state = 0.10;
  double bonus_correction = 0.15;
  double bonus_replacement = 0.08;
  double supersession_penalty = 0.35;
  // Token budgets: the window holds at most window_tokens (DMF τ_tok); Engine::Context's whole
  // context (recalled memory + window) at most context_tokens.
  std::size_t window_tokens = 4096;
  std::size_t context_tokens = 6096;
};

struct LimitsConfig {
  std::size_t max_turn_bytes = 256 * 1024;  // a longer turn is rejected (kInvalidArgument)
  std::size_t max_batch_turns = 100000;      // turns per Remember call
  std::size_t max_query_bytes = 16 * 1024;   // a longer recall query is rejected
  std::size_t max_metadata_bytes = 64 * 1024;
};

// The world graph's client edge types (include/engram/graph.h, Engine::AddEdge).
struct GraphConfig {
  // Comma-separated "name[:flag...]" entries, flags single_valued, symmetric, transitive, e.g.
  // "owns:single_valued, sibling_of:symmetric". Names must not be engram's own edge types.
  // Checked when the engine opens. Default: "" = none.
  std::string edge_types;
};

struct Config {
  Bm25Config bm25;
  RecallConfig recall;
  PlannerConfig planner;
  EmbedderConfig embedder;
  VectorConfig vector;
  WriteConfig write;
  ConsolidateConfig consolidate;
  StoreConfig store;
  ActiveConfig active;
  LimitsConfig limits;
  GraphConfig graph;

  // kInvalidArgument naming the first out-of-range value (the key, the value and the allowed
  // range), unknown route or shape name, or broken rule between keys.
  Status Validate() const;
};

// Reads a TOML file over the defaults. kNotFound if missing, kInvalidArgument naming the key and
// line for syntax errors, unknown keys and out-of-range values.
StatusOr<Config> LoadConfigFile(std::string_view path);
StatusOr<Config> ParseConfig(std::string_view toml_text, std::string_view source_name);

}  // namespace engram

#endif  // ENGRAM_CONFIG_H_
