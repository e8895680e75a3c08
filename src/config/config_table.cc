// The key table of engram's configuration (config_table.h). To add a key: give its field a
// default in include/engram/config.h, add one row here, and regenerate docs/CONFIG.md with
// build/src/config/engram_config_doc docs/CONFIG.md.
#include "config/config_table.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace engram::config {
namespace {

// The field `member` of a Config, as an accessor the table can hold.
#define ENGRAM_FIELD(member) +[](Config& c) -> decltype((c.member)) { return c.member; }

constexpr Range Closed(double min, double max) { return Range{.min = min, .max = max}; }
constexpr Range LeftOpen(double min, double max) {
  return Range{.min = min, .max = max, .min_open = true};
}

// Where defaults come from, in the words docs/CONFIG.md uses.
constexpr std::string_view kChosen = "chosen, not measured";
constexpr std::string_view kReadPath = "measured on the dev files (docs/BENCHMARKS.md, read path)";
constexpr std::string_view kStageSwitch =
    "chosen, not measured (the stage on / off is measured: docs/BENCHMARKS.md, ablations)";

constexpr std::string_view kEmbedderKinds[] = {"use-lite", "openai", "hashing", "none"};
constexpr std::string_view kRankers[] = {"fusion", "learned"};
constexpr std::string_view kEncoderPrecisions[] = {"int8", "float32"};
constexpr std::string_view kVectorPrecisions[] = {"float32", "float16", "int8"};

// One row per key: section, key, field, range, choices, doc, source.
// clang-format off
const KeySpec kKeys[] = {
    // [bm25]
    {"bm25", "k1", ENGRAM_FIELD(bm25.k1), Closed(0, 10), {},
     "term-frequency saturation (Okapi BM25 \"k1\")",
     "DESIGN §12 (Robertson's usual BM25 values)"},
    {"bm25", "b", ENGRAM_FIELD(bm25.b), Closed(0, 1), {},
     "document-length normalisation (Okapi BM25 \"b\")",
     "DESIGN §12 (Robertson's usual BM25 values)"},
    {"bm25", "stem", ENGRAM_FIELD(bm25.stem), {}, {},
     "Porter2-stem index and query terms alike; false = words as written (the flat baseline)",
     kChosen},

    // [recall]
    {"recall", "token_budget", ENGRAM_FIELD(recall.token_budget), Closed(1, 1'000'000), {},
     "default token budget of the packed context (see Tokens below)",
     "chosen, not measured (DMF's 4,096 is DESIGN §12's; engram packs turns, not cards)"},
    {"recall", "max_items", ENGRAM_FIELD(recall.max_items), Closed(1, 10'000), {},
     "default number of items a recall returns", kChosen},
    {"recall", "rrf_k", ENGRAM_FIELD(recall.rrf_k), LeftOpen(0, 10'000), {},
     "\"k\" of weighted reciprocal rank fusion",
     "measured on the dev files (docs/BENCHMARKS.md, fusion re-tuned; Eywa eq. 2 has k = 20)"},
    {"recall", "route_candidates", ENGRAM_FIELD(recall.route_candidates), Closed(1, 10'000), {},
     "candidates each route passes to fusion", kChosen},
    {"recall", "keyword_synonym_weight", ENGRAM_FIELD(recall.keyword_synonym_weight),
     Closed(0, 1), {},
     "keyword route: a keyword matched only through a WordNet synonym counts this x the "
     "synonym's idf",
     "measured on the dev files (docs/BENCHMARKS.md, keyword graph route)"},
    {"recall", "fragment_window", ENGRAM_FIELD(recall.fragment_window), Closed(1, 100), {},
     "fragment route: consecutive turns of a session scored as one window (KeyMem Path C)",
     kChosen},
    {"recall", "fragment_own_weight", ENGRAM_FIELD(recall.fragment_own_weight), Closed(0, 10), {},
     "fragment route: a turn's score = its best window's + this x its own BM25 score", kChosen},
    {"recall", "fragment_soft_match", ENGRAM_FIELD(recall.fragment_soft_match),
     Range{.min = 0.5, .max = 1, .max_open = true, .off = 0}, {},
     "fragment route: index terms this close (Jaro-Winkler) to a query term count as it, "
     "scaled by the similarity (SoftTF-IDF); 0 = exact terms only",
     "measured on the dev files (docs/BENCHMARKS.md, soft matches)"},
    {"recall", "word_vector_match", ENGRAM_FIELD(recall.word_vector_match),
     Range{.min = 0.3, .max = 1, .max_open = true, .off = 0}, {},
     "fragment route: index terms whose GloVe cosine to a query term is at least this count as "
     "it, scaled by the similarity, unless it is in more than 1% of the searched turns "
     "(scripts/fetch-models installs the vectors; without them recall runs without these "
     "matches and a diagnostics warning says so); 0 = off",
     "measured on the dev files and at 100,000 turns (docs/BENCHMARKS.md, word vectors bounded "
     "by document frequency)"},
    {"recall", "word_vector_neighbours", ENGRAM_FIELD(recall.word_vector_neighbours),
     Closed(1, 50), {}, "fragment route: word-vector soft matches kept per query term", kChosen},
    {"recall", "word_vector_weight", ENGRAM_FIELD(recall.word_vector_weight),
     Range{.min = 0, .max = 1, .min_open = true}, {},
     "fragment route: a word-vector soft match counts as its query term scaled by its cosine x "
     "this",
     "measured on the dev files (docs/BENCHMARKS.md, word vectors, issue 22 ablation)"},
    {"recall", "vector_context", ENGRAM_FIELD(recall.vector_context), Closed(0, 4), {},
     "vector route: a turn's vector is taken with this x the vector of the turn before it in its "
     "session (0 = its own alone)",
     "measured on the dev files (docs/BENCHMARKS.md, a turn's vector with its predecessor's)"},
    {"recall", "word_vector_absent_only", ENGRAM_FIELD(recall.word_vector_absent_only), {}, {},
     "fragment route: word-vector soft matches only for query terms no index term of the "
     "searched scopes equals; false = for every query term",
     "measured on the dev files (docs/BENCHMARKS.md, word vectors, issue 22 ablation)"},
    {"recall", "scene_select", ENGRAM_FIELD(recall.scene_select), Closed(1, 1'000), {},
     "scene route: scenes kept, by the maximum relevance of their episodes (\"N\")",
     "EverMemOS §3.5 (N = 10)"},
    {"recall", "scene_episodes", ENGRAM_FIELD(recall.scene_episodes), Closed(1, 1'000), {},
     "scene route: episodes of the kept scenes whose turns are proposed (\"K\")",
     "EverMemOS §3.5 (K = 10)"},
    {"recall", "scene_member_weight", ENGRAM_FIELD(recall.scene_member_weight), Closed(0, 10),
     {}, "scene route: an episode scores its relevance + this x its scene's score", kChosen},
    {"recall", "session_turns", ENGRAM_FIELD(recall.session_turns), Closed(0, 100'000), {},
     "session route: turns proposed per session at most (0 = all)",
     "measured on the dev files (docs/BENCHMARKS.md, session route)"},
    {"recall", "neighbour_seeds", ENGRAM_FIELD(recall.neighbour_seeds), Closed(0, 1'000), {},
     "neighbour expansion: the best this many fused candidates are seeds", kStageSwitch},
    {"recall", "neighbour_radius", ENGRAM_FIELD(recall.neighbour_radius), Closed(0, 100), {},
     "neighbour expansion: turns within this distance of a seed, in its session, get a bonus",
     kStageSwitch},
    {"recall", "neighbour_weight", ENGRAM_FIELD(recall.neighbour_weight), Closed(0, 1), {},
     "neighbour expansion: bonus = this x decay^(distance - 1) x the seed's score; 0 = off",
     kStageSwitch},
    {"recall", "neighbour_decay", ENGRAM_FIELD(recall.neighbour_decay), Closed(0, 1), {},
     "neighbour expansion: the bonus's decay per turn of distance", kStageSwitch},
    {"recall", "question_penalty", ENGRAM_FIELD(recall.question_penalty), Closed(0, 1), {},
     "answerability: x (1 - this x the share of a turn's query-term matches in its questions), "
     "between peers; 0 = off",
     kReadPath},
    {"recall", "neighbour_answer_weight", ENGRAM_FIELD(recall.neighbour_answer_weight),
     Closed(0, 1), {},
     "the reply to a peer's question (share >= 0.5) gets this neighbour weight instead",
     kReadPath},
    {"recall", "person_boost", ENGRAM_FIELD(recall.person_boost), LeftOpen(0, 10), {},
     "x on turns spoken by a speaker the question names; 1 = off",
     "measured on the dev files (docs/BENCHMARKS.md, fusion re-tuned; Eywa demotes others "
     "x0.05, engram lifts the asked person instead)"},
    {"recall", "first_person_boost", ENGRAM_FIELD(recall.first_person_boost), LeftOpen(0, 10), {},
     "x on the user's turns for a first-person question when other roles' turns exist; 1 = off",
     kReadPath},
    {"recall", "excerpt_bytes", ENGRAM_FIELD(recall.excerpt_bytes), Closed(64, 65'536), {},
     "a turn too long for the budget left is packed as an excerpt of at most this many bytes "
     "around its matches",
     "chosen, not measured (Eywa's raw rescue keeps excerpts of at most 1,300 characters)"},
    {"recall", "chat_share", ENGRAM_FIELD(recall.chat_share), Closed(0.05, 0.9), {},
     "chat context mode: most of the token budget the profile and foresight lines may take",
     "chosen, not measured (a quarter leaves the evidence most of the budget)"},
    {"recall", "pack_by_value", ENGRAM_FIELD(recall.pack_by_value), {}, {},
     "choose the context by value per token under the budget (k an upper bound); false = items "
     "in rank order while they fit, at most max_items",
     "measured on the dev files (docs/BENCHMARKS.md, evidence in the context)"},
    {"recall", "pack_max_items", ENGRAM_FIELD(recall.pack_max_items), Closed(1, 10'000), {},
     "value packing: items at most when the caller gives no k",
     "measured on the dev files (docs/BENCHMARKS.md, evidence in the context)"},
    {"recall", "pack_floor", ENGRAM_FIELD(recall.pack_floor), Closed(0, 1), {},
     "value packing: only items scoring at least this x the best item's score are packed",
     "measured on the dev files (docs/BENCHMARKS.md, evidence in the context)"},
    {"recall", "pack_min_tokens", ENGRAM_FIELD(recall.pack_min_tokens), Closed(1, 100'000), {},
     "value packing: value per token counts an item as at least this many tokens, so short "
     "lines do not win by length alone",
     "measured on the dev files (docs/BENCHMARKS.md, evidence in the context)"},
    {"recall", "pack_adjacent_share", ENGRAM_FIELD(recall.pack_adjacent_share), Closed(0, 1), {},
     "value packing: a turn next to a packed turn of its session gains this x that turn's "
     "score; 0 = off",
     "measured on the dev files (docs/BENCHMARKS.md, evidence in the context)"},
    {"recall", "pack_score_power", ENGRAM_FIELD(recall.pack_score_power), Closed(0.25, 8), {},
     "value packing: an item's value relative to the best item's is raised to this power before "
     "it is divided by its tokens; 1 = value per token as it is",
     "measured on the dev files (docs/BENCHMARKS.md, issue 22 ablation)"},
    {"recall", "answer_type_boost", ENGRAM_FIELD(recall.answer_type_boost), Closed(1, 10), {},
     "x on turns holding the date / number / place / person a when / how many / where / who "
     "question asks for; 1 = off",
     kReadPath},
    {"recall", "coverage_weight", ENGRAM_FIELD(recall.coverage_weight), Closed(0, 10), {},
     "x (1 + this x the share of the question's term idf a turn holds) on the best "
     "answer_type_depth turns; 0 = off",
     "measured on the dev files (docs/BENCHMARKS.md, coverage)"},
    {"recall", "superseded_factor", ENGRAM_FIELD(recall.superseded_factor), Closed(0, 1), {},
     "x on a turn every claim of which has been superseded, in a recall about the present; its "
     "successor's evidence turn joins the items; 1 = only marked (superseded_by)",
     "measured on the dev files (docs/BENCHMARKS.md, current state)"},
    {"recall", "answer_type_depth", ENGRAM_FIELD(recall.answer_type_depth), Closed(0, 1'000), {},
     "answer type: among the best this many candidates", kChosen},
    {"recall", "drop_frame_words", ENGRAM_FIELD(recall.drop_frame_words), {}, {},
     "leave frame words (\"how many months have passed since\", \"currently\") out of the "
     "lexical routes' query terms",
     kReadPath},
    {"recall", "temporal_mentions", ENGRAM_FIELD(recall.temporal_mentions), {}, {},
     "the temporal route also proposes turns that name a time inside the question's time "
     "constraint (\"on 17 October\"), not only turns said then",
     "measured on the dev files (docs/BENCHMARKS.md, dates inside turns)"},
    {"recall", "ranker", ENGRAM_FIELD(recall.ranker), {}, kRankers,
     "\"learned\": the best ranker_depth candidates re-ordered by the learned ranker's trees "
     "over their ranking features; \"fusion\": the adjusted fused order",
     "measured on the dev files (docs/BENCHMARKS.md, learned ranking)"},
    {"recall", "ranker_model", ENGRAM_FIELD(recall.ranker_model), {}, {},
     "the learned ranker's model file (bench/train_ranker.py writes one); \"\" = the built-in "
     "model", kChosen},
    {"recall", "ranker_depth", ENGRAM_FIELD(recall.ranker_depth), Closed(1, 1'000), {},
     "the learned ranker re-orders this many of the best candidates",
     "the depth the model was trained at (bench/train_ranker.py)"},
    {"recall", "answer_type_tense", ENGRAM_FIELD(recall.answer_type_tense), {}, {},
     "a time answer counts only on the side of its turn's time the question's tense asks for",
     kReadPath},
    {"recall", "bridge_weight", ENGRAM_FIELD(recall.bridge_weight), Closed(0, 10), {},
     "entity bridge: turns naming a rare entity a seed names get + this x the seed's score; "
     "0 = off",
     kReadPath},
    {"recall", "bridge_seeds", ENGRAM_FIELD(recall.bridge_seeds), Closed(0, 100), {},
     "entity bridge: the best this many candidates are seeds", kChosen},
    {"recall", "bridge_max_turns", ENGRAM_FIELD(recall.bridge_max_turns), Closed(0, 100'000), {},
     "entity bridge: an entity is rare when at most this many turns name it", kChosen},
    {"recall", "hop_seeds", ENGRAM_FIELD(recall.hop_seeds), Closed(0, 100), {},
     "follow-up recall ([planner.<shape>] hop): the first this many turns lead the second search",
     kChosen},
    {"recall", "hop_candidates", ENGRAM_FIELD(recall.hop_candidates), Closed(0, 1000), {},
     "follow-up recall: hits taken from each searched scope's second search", kChosen},
    {"recall", "entity_lexical_weight", ENGRAM_FIELD(recall.entity_lexical_weight), Closed(0, 10),
     {}, "entity route: a turn's score = its entity weights + this x its own BM25 score",
     kChosen},
    {"recall", "facts_asked_subject", ENGRAM_FIELD(recall.facts_asked_subject), Closed(0, 10), {},
     "fact route: x on a fact whose subject is the person asked about", kChosen},
    {"recall", "facts_other_subject", ENGRAM_FIELD(recall.facts_other_subject), Closed(0, 10), {},
     "fact route: x on a fact about someone other than the person the question names", kChosen},
    {"recall", "facts_untimed_when", ENGRAM_FIELD(recall.facts_untimed_when), Closed(0, 10), {},
     "fact route: x on a fact without a time for a \"when\" question", kChosen},

    {"recall", "llm_loop", ENGRAM_FIELD(recall.llm_loop), {}, {},
     "optional LLM loop: sufficiency check, sub-questions and answer keywords recalled too, "
     "rerank (OpenAI-compatible chat completions; sends the question and the packed context)",
     "DESIGN §1 (deterministic by default: off)"},
    {"recall", "llm_base_url", ENGRAM_FIELD(recall.llm_base_url), {}, {},
     "LLM loop: endpoint prefix", "chosen: a local server's usual address"},
    {"recall", "llm_model", ENGRAM_FIELD(recall.llm_model), {}, {},
     "LLM loop: model name (required with llm_loop = true)", kChosen},
    {"recall", "llm_api_key_env", ENGRAM_FIELD(recall.llm_api_key_env), {}, {},
     "LLM loop: environment variable holding the API key (\"\" = none)", kChosen},
    {"recall", "llm_timeout_ms", ENGRAM_FIELD(recall.llm_timeout_ms), Closed(1, 600'000), {},
     "LLM loop: per request; a request that times out leaves the deterministic result", kChosen},
    {"recall", "llm_max_tokens", ENGRAM_FIELD(recall.llm_max_tokens), Closed(16, 32'768), {},
     "LLM loop: completion length limit of each request", kChosen},
    {"recall", "llm_skip_sufficient", ENGRAM_FIELD(recall.llm_skip_sufficient), {}, {},
     "LLM loop: no request when the deterministic sufficiency verdict is sufficient", kChosen},
    {"recall", "llm_rounds", ENGRAM_FIELD(recall.llm_rounds), Closed(1, 3), {},
     "LLM loop: check-and-recall rounds at most (one request each)", kChosen},
    {"recall", "llm_max_queries", ENGRAM_FIELD(recall.llm_max_queries), Closed(1, 8), {},
     "LLM loop: sub-questions one reply may give (more = the reply is refused)", kChosen},
    {"recall", "llm_max_keywords", ENGRAM_FIELD(recall.llm_max_keywords), Closed(0, 32), {},
     "LLM loop: answer keywords one reply may give (more = the reply is refused)", kChosen},
    {"recall", "llm_rerank_top", ENGRAM_FIELD(recall.llm_rerank_top), Closed(0, 50), {},
     "LLM loop: best items the model may reorder (one more request); 0 = no rerank", kChosen},

    // [planner]
    {"planner", "enabled", ENGRAM_FIELD(planner.enabled), {}, {},
     "false: every question uses [recall] as it is", "Eywa Table 3 (a rule table per shape)"},

    // [embedder]
    {"embedder", "kind", ENGRAM_FIELD(embedder.kind), {}, kEmbedderKinds,
     "use-lite (built-in encoder), openai (HTTP /v1/embeddings), hashing (tests) or none",
     "DESIGN §8 (the built-in encoder)"},
    {"embedder", "threads", ENGRAM_FIELD(embedder.threads), Closed(1, 64), {},
     "use-lite: threads one batch of texts is spread over", "chosen: the 2-core target machine"},
    {"embedder", "precision", ENGRAM_FIELD(embedder.precision), {}, kEncoderPrecisions,
     "use-lite: int8 (exact integer sums, the same bytes on every CPU) or float32 (reference)",
     "measured on the dev files (int8 within 0.002 of float32, about 4x faster)"},
    {"embedder", "verify_checksums", ENGRAM_FIELD(embedder.verify_checksums), {}, {},
     "use-lite: check the model files against SHA256SUMS when loading", kChosen},
    {"embedder", "base_url", ENGRAM_FIELD(embedder.base_url), {}, {},
     "openai: requests go to base_url + \"/embeddings\"", "chosen: a local server's usual address"},
    {"embedder", "model", ENGRAM_FIELD(embedder.model), {}, {},
     "openai: model name (required with kind = \"openai\")", kChosen},
    {"embedder", "dimension", ENGRAM_FIELD(embedder.dimension), Closed(0, 65'536), {},
     "openai: vector length the model returns (required with kind = \"openai\")", kChosen},
    {"embedder", "api_key_env", ENGRAM_FIELD(embedder.api_key_env), {}, {},
     "openai: environment variable holding the API key; \"\" = $ENGRAM_EMBEDDINGS_API_KEY, else "
     "$OPENAI_API_KEY, else none",
     kChosen},
    {"embedder", "timeout_ms", ENGRAM_FIELD(embedder.timeout_ms), Closed(1, 3'600'000), {},
     "openai: per request", kChosen},
    {"embedder", "max_retries", ENGRAM_FIELD(embedder.max_retries), Closed(0, 100), {},
     "openai: retries after 429 / 5xx / connection failures / timeouts", kChosen},
    {"embedder", "batch_size", ENGRAM_FIELD(embedder.batch_size), Closed(1, 100'000), {},
     "openai: texts per request", kChosen},
    {"embedder", "hashing_dimension", ENGRAM_FIELD(embedder.hashing_dimension),
     Closed(1, 65'536), {}, "hashing: vector length", kChosen},

    // [vector]
    {"vector", "exact_threshold", ENGRAM_FIELD(vector.exact_threshold), Closed(0, 100'000'000),
     {}, "scopes with at most this many vectors are searched exactly, larger ones through HNSW",
     "measured (docs/BENCHMARKS.md, vector search)"},
    {"vector", "hnsw_max_neighbors", ENGRAM_FIELD(vector.hnsw_max_neighbors), Closed(2, 256), {},
     "HNSW \"M\": links per node",
     "measured recall (src/index/vector/hnsw_index.h)"},
    {"vector", "hnsw_construction_expansion", ENGRAM_FIELD(vector.hnsw_construction_expansion),
     Closed(1, 10'000), {}, "HNSW \"efConstruction\"",
     "measured recall (src/index/vector/hnsw_index.h)"},
    {"vector", "hnsw_search_expansion", ENGRAM_FIELD(vector.hnsw_search_expansion),
     Closed(1, 10'000), {}, "HNSW \"ef\" (raised to k when k is larger)",
     "measured recall (src/index/vector/hnsw_index.h)"},

    // [write]
    {"write", "signals", ENGRAM_FIELD(write.signals), {}, {},
     "Tier-0 signals (the analysis row) and time anchors with at_time edges", "Eywa Tier 0 (on)"},
    {"write", "entities", ENGRAM_FIELD(write.entities), {}, {},
     "entity mentions, resolution and same_as proposals", "WorldDB §3.1 (on)"},
    {"write", "references", ENGRAM_FIELD(write.references), {}, {},
     "pronouns, \"there\", \"that day\" resolved to entities and times", "KeyMem §3.5 (on)"},
    {"write", "min_entity_confidence", ENGRAM_FIELD(write.min_entity_confidence), Closed(0, 1), {},
     "a weaker person / place / organisation mention stays a signal and makes no entity",
     "chosen, not measured (capitalisation alone, 0.3, makes none)"},
    {"write", "resolve_accept", ENGRAM_FIELD(write.resolve_accept), LeftOpen(0, 1), {},
     "Jaro-Winkler similarity at or above which a mention is the existing entity",
     "chosen, not measured (WorldDB §3.1 tier 2 gives no value)"},
    {"write", "resolve_propose", ENGRAM_FIELD(write.resolve_propose), LeftOpen(0, 1), {},
     "at or above (below resolve_accept, which it may not exceed), or an equal phonetic key: a "
     "new entity with a pending same_as",
     "chosen, not measured (WorldDB §3.1 tier 2 gives no value)"},
    {"write", "resolve_embed_propose", ENGRAM_FIELD(write.resolve_embed_propose), Closed(0, 1), {},
     "with an embedder, name-embedding cosine at or above which an unmatched mention gets a "
     "pending same_as (never merges); 0 = off",
     "measured on name pairs with USE-lite (include/engram/config.h)"},
    {"write", "entity_cap", ENGRAM_FIELD(write.entity_cap), Closed(1, 1'000), {},
     "DMF E_cap: the entity count saturates here", "DMF eq. 4 (E_cap = 5, DESIGN §12)"},
    {"write", "reference_ttl_turns", ENGRAM_FIELD(write.reference_ttl_turns), Closed(1, 1'000), {},
     "a reference binding lives this many turns after its last mention",
     "KeyMem §3.5 (TTL 3, DESIGN §12)"},
    {"write", "reference_person_stack", ENGRAM_FIELD(write.reference_person_stack),
     Closed(1, 1'000), {}, "references: people (and speakers) kept in focus at most",
     "KeyMem §3.5 (entity stack 10, DESIGN §12)"},
    {"write", "reference_place_stack", ENGRAM_FIELD(write.reference_place_stack),
     Closed(1, 1'000), {}, "references: places kept in focus at most",
     "KeyMem §3.5 (location stack 4, DESIGN §12)"},
    {"write", "reference_time_stack", ENGRAM_FIELD(write.reference_time_stack), Closed(1, 1'000),
     {}, "references: times kept in focus at most", "KeyMem §3.5 (time stack 4, DESIGN §12)"},
    {"write", "divergence_window", ENGRAM_FIELD(write.divergence_window), Closed(1, 1'000), {},
     "DMF W: divergence = 1 - cos(turn, centroid of the previous W turns)",
     "chosen, not measured (DMF leaves W to the configuration)"},
    {"write", "max_signals_per_turn", ENGRAM_FIELD(write.max_signals_per_turn),
     Closed(1, 100'000), {},
     "a turn yields at most this many signals (the first in text order; the rest is stored and "
     "indexed but derives nothing)",
     "chosen, not measured (bounds one turn's cost)"},
    {"write", "max_pending_turns", ENGRAM_FIELD(write.max_pending_turns), Closed(0, 1'000'000'000),
     {},
     "a write acknowledged before its derivation is refused (kUnavailable, HTTP 503 with "
     "Retry-After) while this many turns await derivation; 0 = unbounded",
     "chosen: about 7-14 minutes of the single worker's derivation"},
    {"write", "facts", ENGRAM_FIELD(write.facts), {}, {},
     "rule-based facts, validation and reconciliation", "Eywa Tier 1 (on)"},
    {"write", "fact_min_support", ENGRAM_FIELD(write.fact_min_support), Closed(0, 1), {},
     "validator V_support: least share of a fact's object words found in its sentence",
     "chosen, not measured (Eywa §4.3 names the check, not a value)"},
    {"write", "foresight_days", ENGRAM_FIELD(write.foresight_days), Closed(1, 36'500), {},
     "validity of a plan / temporary state whose turn gives no end, in days",
     "chosen, not measured (EverMemOS foresight has a validity, no default)"},
    {"write", "llm_facts", ENGRAM_FIELD(write.llm_facts), {}, {},
     "optional LLM extractor (OpenAI-compatible chat completions), same validator",
     "DESIGN §1 (deterministic by default: off)"},
    {"write", "llm_base_url", ENGRAM_FIELD(write.llm_base_url), {}, {},
     "LLM extractor: endpoint prefix", "chosen: a local server's usual address"},
    {"write", "llm_model", ENGRAM_FIELD(write.llm_model), {}, {},
     "LLM extractor: model name (required with llm_facts = true)", kChosen},
    {"write", "llm_api_key_env", ENGRAM_FIELD(write.llm_api_key_env), {}, {},
     "LLM extractor: environment variable holding the API key (\"\" = none)", kChosen},
    {"write", "llm_timeout_ms", ENGRAM_FIELD(write.llm_timeout_ms), Closed(1, 3'600'000), {},
     "LLM extractor: per request", kChosen},

    // [consolidate]
    {"consolidate", "every_turns", ENGRAM_FIELD(consolidate.every_turns), Closed(0, 1'000'000), {},
     "Remember consolidates the scope when a batch crosses a multiple of this; 0 = explicit only",
     "chosen, not measured (KeyMem consolidates every 10 turns; off keeps writes cheap)"},
    {"consolidate", "episode_gap_minutes", ENGRAM_FIELD(consolidate.episode_gap_minutes),
     Closed(1, 5'256'000), {}, "episodes: a longer pause between turns starts a new episode",
     kChosen},
    {"consolidate", "episode_min_turns", ENGRAM_FIELD(consolidate.episode_min_turns),
     Closed(1, 10'000), {}, "episodes: a topic shift may start an episode only after this many turns",
     kChosen},
    {"consolidate", "episode_max_turns", ENGRAM_FIELD(consolidate.episode_max_turns),
     Closed(1, 100'000), {}, "episodes: at most this many turns per episode", kChosen},
    {"consolidate", "topic_divergence", ENGRAM_FIELD(consolidate.topic_divergence), Closed(0, 2), {},
     "episodes: a topic shift needs the turn's stored divergence at or above this (with an embedder)",
     kChosen},
    {"consolidate", "topic_overlap", ENGRAM_FIELD(consolidate.topic_overlap), Closed(0, 1), {},
     "episodes: ... and at most this share of its content terms in the episode's last turns",
     kChosen},
    {"consolidate", "topic_window", ENGRAM_FIELD(consolidate.topic_window), Closed(1, 1'000), {},
     "episodes: latest turns the lexical shift compares with", kChosen},
    {"consolidate", "topic_min_terms", ENGRAM_FIELD(consolidate.topic_min_terms), Closed(1, 1'000),
     {}, "episodes: a turn with fewer content terms never starts a topic", kChosen},
    {"consolidate", "narrative_sentences", ENGRAM_FIELD(consolidate.narrative_sentences),
     Closed(1, 1'000), {}, "episodes: sentences in the extractive narrative", kChosen},
    {"consolidate", "scene_threshold", ENGRAM_FIELD(consolidate.scene_threshold), Closed(-1, 1), {},
     "scenes: an episode joins the most similar scene at or above this cosine",
     "EverMemOS Table 6 (0.70 for LoCoMo)"},
    {"consolidate", "scene_max_gap_days", ENGRAM_FIELD(consolidate.scene_max_gap_days),
     Closed(1, 36'500), {}, "scenes: ... when a member of the scene is at most this many days away",
     "EverMemOS Table 6 (7 for LoCoMo)"},
    {"consolidate", "scene_keywords", ENGRAM_FIELD(consolidate.scene_keywords), Closed(1, 1'000), {},
     "scenes: keywords kept in a scene's vocabulary", kChosen},
    {"consolidate", "scene_summary_sentences", ENGRAM_FIELD(consolidate.scene_summary_sentences),
     Closed(1, 1'000), {}, "scenes: sentences in the extractive summary", kChosen},

    // [store]
    {"store", "vector_precision", ENGRAM_FIELD(store.vector_precision), {}, kVectorPrecisions,
     "how new turn embeddings are stored: float32 (4 bytes a value), float16 (2 bytes) or int8 "
     "(1 byte and a float32 scale a vector); scores computed in float32 over the decoded values",
     "measured on the dev files (docs/BENCHMARKS.md, half-float and int8 vectors): float16 "
     "gives the same metrics as float32 and a store 37% smaller; int8 moves no headline metric "
     "by more than 0.001 and takes 19% (LoCoMo) and 9% (LongMemEval) off a float16 store"},
    {"store", "pool_size", ENGRAM_FIELD(store.pool_size), Closed(2, 1'000), {},
     "PostgreSQL store: connections kept at most (one writer, the rest for reads)", kChosen},
    {"store", "connect_timeout_seconds", ENGRAM_FIELD(store.connect_timeout_seconds),
     Closed(1, 3'600), {},
     "PostgreSQL store: seconds a connection attempt may take before the server is reported "
     "unreachable (libpq connect_timeout; 1 counts as 2)",
     kChosen},
    {"store", "statement_timeout_ms", ENGRAM_FIELD(store.statement_timeout_ms),
     Closed(0, 86'400'000), {},
     "PostgreSQL store: the server cancels a statement running longer (0 = never); also bounds a "
     "write's wait for another server's writer",
     kChosen},
    {"store", "follow_poll_ms", ENGRAM_FIELD(store.follow_poll_ms), Closed(10, 3'600'000), {},
     "engram serve: the longest wait between two checks of the store's journal for other "
     "servers' writes when no notification wakes it (PostgreSQL notifies at every commit; a "
     "SQLite store is polled every 100 ms)",
     kChosen},

    // [active]
    {"active", "weight_density", ENGRAM_FIELD(active.weight_density), Closed(0, 100), {},
     "survival score: weight of information density (alpha)", "DMF §5.1 Table 1 (3.0)"},
    {"active", "weight_sentiment", ENGRAM_FIELD(active.weight_sentiment), Closed(0, 100), {},
     "survival score: weight of sentiment magnitude, the absolute VADER compound (beta)",
     "DMF §5.1 Table 1 (0.2)"},
    {"active", "weight_entities", ENGRAM_FIELD(active.weight_entities), Closed(0, 100), {},
     "survival score: weight of the normalised entity count E_norm (gamma)",
     "DMF §5.1 Table 1 (2.0)"},
    {"active", "weight_divergence", ENGRAM_FIELD(active.weight_divergence), Closed(-100, 0), {},
     "survival score: weight of semantic divergence D (delta, a penalty)",
     "DMF §5.1 Table 1 (-2.5)"},
    {"active", "midpoint", ENGRAM_FIELD(active.midpoint), Closed(-100, 100), {},
     "survival score: logistic midpoint x0, Omega = sigma(z - x0)", "DMF §5.2 Table 1 (1.5)"},
    {"active", "operational_scale", ENGRAM_FIELD(active.operational_scale), Closed(0, 100), {},
     "operational channel: scale lambda_op of the conversational-signal weights",
     "DMF §5.1 eq. 9 (0.75)"},
    {"active", "eta_constraint", ENGRAM_FIELD(active.eta_constraint), Closed(0, 100), {},
     "operational channel: weight of a constraint", "DMF §5.1 eq. 9 (1.20)"},
    {"active", "eta_preference", ENGRAM_FIELD(active.eta_preference), Closed(0, 100), {},
     "operational channel: weight of a preference", "DMF §5.1 eq. 9 (0.70)"},
    {"active", "eta_current_state", ENGRAM_FIELD(active.eta_current_state), Closed(0, 100), {},
     "operational channel: weight of a current state", "DMF §5.1 eq. 9 (0.60)"},
    {"active", "eta_correction", ENGRAM_FIELD(active.eta_correction), Closed(0, 100), {},
     "operational channel: weight of a correction", "DMF §5.1 eq. 9 (0.90)"},
    {"active", "eta_replacement", ENGRAM_FIELD(active.eta_replacement), Closed(0, 100), {},
     "operational channel: weight of a replacement", "DMF §5.1 eq. 9 (0.50)"},
    {"active", "eta_past_state", ENGRAM_FIELD(active.eta_past_state), Closed(0, 100), {},
     "operational channel: weight of a past state", "DMF §5.1 eq. 9 (0.0)"},
    {"active", "boost_user_correction", ENGRAM_FIELD(active.boost_user_correction),
     Closed(0, 100), {},
     "provenance channel: turn metadata \"provenance\" names user_correction",
     "DMF §5.1 eq. 10, Table 4 (0.15)"},
    {"active", "boost_preference_update", ENGRAM_FIELD(active.boost_preference_update),
     Closed(0, 100), {}, "provenance channel: ... names preference_update",
     "DMF §5.1 eq. 10, Table 4 (0.10)"},
    {"active", "boost_constraint_source", ENGRAM_FIELD(active.boost_constraint_source),
     Closed(0, 100), {}, "provenance channel: ... names constraint_source",
     "DMF §5.1 eq. 10, Table 4 (0.10)"},
    {"active", "penalty_corrected_by_user", ENGRAM_FIELD(active.penalty_corrected_by_user),
     Closed(0, 100), {}, "provenance channel: subtracted when it names corrected_by_user",
     "DMF §5.1 eq. 10, Table 4 (0.0)"},
    {"active", "social_activation", ENGRAM_FIELD(active.social_activation), Closed(0, 1), {},
     "social floor: applies to an ack-like turn whose Omega is below this",
     "DMF §8.2 eq. 29 (0.40)"},
    {"active", "social_floor", ENGRAM_FIELD(active.social_floor), Closed(0, 1), {},
     "social floor: ... and raises its Omega to at least this (<= social_activation)",
     "DMF §8.2 eq. 29 (0.25)"},
    {"active", "decay_rate", ENGRAM_FIELD(active.decay_rate), Closed(0, 10), {},
     "decay: base rate lambda per interaction", "DMF §6.5 Table 3 (0.035)"},
    {"active", "inertia", ENGRAM_FIELD(active.inertia), Range{.min = 0, .max = 1, .max_open = true},
     {}, "decay: inertia eta, the rate is lambda (1 - eta Omega)", "DMF §6.3 Table 3 (0.5)"},
    {"active", "tier_healthy", ENGRAM_FIELD(active.tier_healthy), Closed(0, 1), {},
     "tiers: healthy above this Omega_eff (protected from budget pruning)",
     "DMF §6.6 eq. 20 (tau_H = 0.75)"},
    {"active", "tier_critical", ENGRAM_FIELD(active.tier_critical), Closed(0, 1), {},
     "tiers: critical at or below this Omega_eff (<= tier_healthy)",
     "DMF §6.6 eq. 20 (tau_C = 0.3)"},
    {"active", "kill_floor", ENGRAM_FIELD(active.kill_floor), Closed(0, 1), {},
     "hard-kill: a turn whose Omega_eff is below this at a sweep leaves the window",
     "DMF §7.1 eq. 21 (0.05)"},
    {"active", "kill_every_turns", ENGRAM_FIELD(active.kill_every_turns), Closed(1, 1'000'000), {},
     "hard-kill: a sweep runs every this many interactions",
     "DMF §7.1, §10.2 [capacity] (the reference configuration's 5)"},
    {"active", "bonus_constraint", ENGRAM_FIELD(active.bonus_constraint), Closed(0, 100), {},
     "budget pruning: retention bonus of a constraint", "DMF §7.2.2 eq. 23 (0.20)"},
    {"active", "bonus_preference", ENGRAM_FIELD(active.bonus_preference), Closed(0, 100), {},
     "budget pruning: retention bonus of a preference", "DMF §7.2.2 eq. 23 (0.10)"},
    {"active", "bonus_current_state", ENGRAM_FIELD(active.bonus_current_state), Closed(0, 100), {},
     "budget pruning: retention bonus of a current state", "DMF §7.2.2 eq. 23 (0.10)"},
    {"active", "bonus_correction", ENGRAM_FIELD(active.bonus_correction), Closed(0, 100), {},
     "budget pruning: retention bonus of a correction", "DMF §7.2.2 eq. 23 (0.15)"},
    {"active", "bonus_replacement", ENGRAM_FIELD(active.bonus_replacement), Closed(0, 100), {},
     "budget pruning: retention bonus of a replacement", "DMF §7.2.2 eq. 23 (0.08)"},
    {"active", "supersession_penalty", ENGRAM_FIELD(active.supersession_penalty), Closed(0, 100),
     {}, "budget pruning: penalty of a turn whose fact a later turn superseded",
     "DMF §7.2.3 eq. 24 (0.35)"},
    {"active", "window_tokens", ENGRAM_FIELD(active.window_tokens), Closed(1, 1'000'000), {},
     "the active window holds at most this many tokens (tau_tok)", "DMF §7.2 (4,096)"},
    {"active", "context_tokens", ENGRAM_FIELD(active.context_tokens), Closed(1, 1'000'000), {},
     "Engine::Context: default budget of recalled memory + active window",
     "chosen: [recall] token_budget's 2,000 + DMF's window of 4,096"},

    // [limits]
    {"limits", "max_turn_bytes", ENGRAM_FIELD(limits.max_turn_bytes), Closed(1, 64 << 20), {},
     "a longer turn is rejected", kChosen},
    {"limits", "max_batch_turns", ENGRAM_FIELD(limits.max_batch_turns), Closed(1, 10'000'000), {},
     "turns per Remember call / per ingested scope", kChosen},
    {"limits", "max_query_bytes", ENGRAM_FIELD(limits.max_query_bytes), Closed(1, 1 << 20), {},
     "a longer recall query is rejected", kChosen},
    {"limits", "max_metadata_bytes", ENGRAM_FIELD(limits.max_metadata_bytes), Closed(1, 16 << 20),
     {}, "metadata JSON per turn", kChosen},

    // [graph]
    {"graph", "edge_types", ENGRAM_FIELD(graph.edge_types), {}, {},
     "client edge types a client may add (Engine::AddEdge): comma-separated "
     "\"name[:flag...]\" entries, flags single_valued, symmetric, transitive, e.g. "
     "\"owns:single_valued, sibling_of:symmetric\"; checked when the engine opens", kChosen},
};
// clang-format on

#undef ENGRAM_FIELD

constexpr std::string_view kSections[] = {"bm25",   "recall", "planner",     "embedder",
                                          "vector", "write",  "consolidate", "store",
                                          "active", "limits", "graph"};
constexpr std::string_view kShapes[] = {"factoid", "list",         "count",          "boolean",
                                        "when",    "ordering",     "recommendation", "inference",
                                        "summary", "current_state"};

std::string FormatNumber(double value) {
  if (std::isnan(value)) return "nan";  // TOML's spelling, whatever the sign bit (printf: "-nan")
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.15g", value);
  return buffer;
}

std::string JoinNames(std::span<const std::string_view> names) {
  std::string joined;
  for (const std::string_view name : names) {
    joined += (joined.empty() ? "" : ", ") + std::string(name);
  }
  return joined;
}

}  // namespace

bool Range::Contains(double value) const {
  if (off.has_value() && value == *off) return true;
  if (!std::isfinite(value)) return false;
  const bool above_min = min_open ? value > min : value >= min;
  const bool below_max = max_open ? value < max : value <= max;
  return above_min && below_max;
}

std::string Range::ToString() const {
  std::string text = (min_open ? "(" : "[") + FormatNumber(min) + ", " + FormatNumber(max) +
                     (max_open ? ")" : "]");
  return off.has_value() ? FormatNumber(*off) + " or " + text : text;
}

Value KeySpec::Get(const Config& config) const {
  // The accessors only read here; they take a mutable Config so one accessor serves both ways.
  Config& readable = const_cast<Config&>(config);
  return std::visit([&](auto accessor) -> Value { return accessor(readable); }, field);
}

std::string_view KeySpec::TypeName() const {
  constexpr std::string_view kNames[] = {"number", "integer", "bool", "string"};
  return kNames[field.index()];
}

std::span<const KeySpec> Keys() { return kKeys; }
std::span<const std::string_view> Sections() { return kSections; }
std::span<const std::string_view> ShapeNames() { return kShapes; }

std::span<const std::string_view> RouteNames() {
  static const std::vector<std::string_view> names = [] {
    static const Config defaults;
    std::vector<std::string_view> keys;
    for (const auto& [route, weight] : defaults.recall.route_weights) keys.emplace_back(route);
    return keys;
  }();
  return names;
}

Range RouteWeightRange() { return Closed(0, 100); }
Range CallRouteWeightRange() { return Closed(0, 1000); }
Range BudgetScaleRange() { return LeftOpen(0, 100); }
Range SessionDiscountRange() { return Closed(0, 100); }
Range HopWeightRange() { return Closed(0, 10); }

std::string FormatValue(const Value& value) {
  if (const double* number = std::get_if<double>(&value)) {
    std::string text = FormatNumber(*number);
    // TOML reads "1" as an integer: keep a float a float ("nan" and "inf" are floats already).
    if (std::isfinite(*number) && text.find_first_of(".eE") == std::string::npos) text += ".0";
    return text;
  }
  if (const std::size_t* integer = std::get_if<std::size_t>(&value)) {
    return std::to_string(*integer);
  }
  if (const bool* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  return "\"" + std::get<std::string>(value) + "\"";
}

Status CheckValue(const KeySpec& spec, const Value& value) {
  const std::string key = "[" + std::string(spec.section) + "] " + std::string(spec.key);
  if (spec.IsNumber()) {
    const double number = std::holds_alternative<double>(value)
                              ? std::get<double>(value)
                              : static_cast<double>(std::get<std::size_t>(value));
    if (!spec.range.Contains(number)) {
      return Status::InvalidArgument(key + " is " + FormatValue(value) + "; it must be in " +
                                     spec.range.ToString());
    }
  }
  if (!spec.choices.empty()) {
    const std::string& text = std::get<std::string>(value);
    bool known = false;
    for (const std::string_view choice : spec.choices) known = known || choice == text;
    if (!known) {
      return Status::InvalidArgument(key + " is \"" + text + "\"; it must be one of " +
                                     JoinNames(spec.choices));
    }
  }
  return Status::Ok();
}

Status CheckRouteWeight(std::string_view where, std::string_view route, double weight) {
  bool known = false;
  for (const std::string_view name : RouteNames()) known = known || name == route;
  const std::string key = std::string(where) + " " + std::string(route);
  if (!known) {
    return Status::InvalidArgument(key + ": unknown route \"" + std::string(route) +
                                   "\" (routes: " + JoinNames(RouteNames()) + ")");
  }
  if (!RouteWeightRange().Contains(weight)) {
    return Status::InvalidArgument(key + " is " + FormatValue(weight) + "; it must be in " +
                                   RouteWeightRange().ToString());
  }
  return Status::Ok();
}

Status CheckPlannerEntry(std::string_view where, std::string_view name, double value) {
  if (name == "hop") {
    if (!HopWeightRange().Contains(value)) {
      return Status::InvalidArgument(std::string(where) + " hop is " + FormatValue(value) +
                                     "; it must be in " + HopWeightRange().ToString());
    }
    return Status::Ok();
  }
  if (name == "session_discount") {
    if (!SessionDiscountRange().Contains(value)) {
      return Status::InvalidArgument(std::string(where) + " session_discount is " +
                                     FormatValue(value) + "; it must be in " +
                                     SessionDiscountRange().ToString());
    }
    return Status::Ok();
  }
  if (name != "budget_scale") return CheckRouteWeight(where, name, value);
  if (!BudgetScaleRange().Contains(value)) {
    return Status::InvalidArgument(std::string(where) + " budget_scale is " + FormatValue(value) +
                                   "; it must be in " + BudgetScaleRange().ToString());
  }
  return Status::Ok();
}

std::string ReferenceMarkdown() {
  const Config defaults;
  std::string out;
  for (const std::string_view section : kSections) {
    out += "\n### [" + std::string(section) + "]\n\n";
    out += "| key | type | default | allowed | what it does | default from |\n";
    out += "|---|---|---|---|---|---|\n";
    for (const KeySpec& spec : kKeys) {
      if (spec.section != section) continue;
      std::string allowed = spec.IsNumber()             ? spec.range.ToString()
                            : !spec.choices.empty()     ? JoinNames(spec.choices)
                            : spec.TypeName() == "bool" ? "true, false"
                                                        : "any";
      out += "| `" + std::string(spec.key) + "` | " + std::string(spec.TypeName()) + " | `" +
             FormatValue(spec.Get(defaults)) + "` | " + allowed + " | " + std::string(spec.doc) +
             " | " + std::string(spec.source) + " |\n";
    }
  }
  out += "\n### [recall.route_weights]\n\n";
  out += "Weight of each route in fusion, " + RouteWeightRange().ToString() +
         "; a route not listed weighs 1.0, weight 0 means the route is not run (unless named in "
         "`--routes`). Routes: " +
         JoinNames(RouteNames()) +
         ". An unknown route, or a weight outside the range (NaN and infinities included), is an "
         "error naming it. One recall's own weights (`RecallOptions::route_weights`; "
         "`route_weights` of REST, MCP and Python) replace these for that call, checked the same "
         "way in " +
         CallRouteWeightRange().ToString() + ". Defaults:\n\n```toml\n[recall.route_weights]\n";
  for (const auto& [route, weight] : defaults.recall.route_weights) {
    out += route + " = " + FormatValue(weight) + "\n";
  }
  out += "```\n\n### [planner.&lt;shape&gt;]\n\n";
  out += "One table per question shape (" + JoinNames(kShapes) + "); its route entries (" +
         RouteWeightRange().ToString() +
         ") replace [recall.route_weights] for questions of that shape, `budget_scale` (" +
         BudgetScaleRange().ToString() + ") multiplies the token budget, `session_discount` (" +
         SessionDiscountRange().ToString() +
         ") spreads value packing over sessions ([recall] pack_by_value: an item's value is "
         "divided by 1 + this x the items already packed from its session), `hop` (" +
         HopWeightRange().ToString() +
         ") turns on the follow-up recall (src/read/hop.h) at this weight. Defaults:\n\n```toml\n";
  for (const auto& [shape, values] : defaults.planner.shapes) {
    out += "[planner." + shape + "]\n";
    for (const auto& [name, value] : values) out += name + " = " + FormatValue(value) + "\n";
  }
  out += "```\n";
  return out;
}

StatusOr<std::string> SpliceReference(std::string_view doc) {
  const std::size_t begin = doc.find(kReferenceBegin);
  const std::size_t end = doc.find(kReferenceEnd);
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) {
    return Status::InvalidArgument("the document has no \"" + std::string(kReferenceBegin) +
                                   "\" ... \"" + std::string(kReferenceEnd) + "\" markers");
  }
  const std::size_t body = begin + kReferenceBegin.size();
  return std::string(doc.substr(0, body)) + "\n" + ReferenceMarkdown() + "\n" +
         std::string(doc.substr(end));
}

}  // namespace engram::config
