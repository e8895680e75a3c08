// Bm25Index: posting lists per term, doc table, and the multi-index top-k search.
#include "index/bm25/bm25_index.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <utility>

#include "index/bm25/bm25.h"

namespace engram::index {
namespace {

constexpr std::uint32_t kNoOwner = std::numeric_limits<std::uint32_t>::max();

// The dense score array is used when the doc range of the query's postings is at most this many
// times their number (plus a constant): zeroing and scanning a slot costs about as much as a hash
// probe. Beyond it, a hash map keyed by doc.
constexpr std::uint64_t kDenseRangePerPosting = 8;
constexpr std::uint64_t kDenseRangeSlack = 4096;
// Never more than this many dense slots (12 bytes each): 48 MiB.
constexpr std::uint64_t kMaxDenseSlots = std::uint64_t{1} << 22;
// Each thread keeps its dense arrays between searches up to this many slots (12 MiB), so a query
// does not pay for fresh zero pages.
constexpr std::size_t kMaxRetainedSlots = std::size_t{1} << 20;

// The dense accumulator: score and owning index per doc slot.
struct DenseScratch {
  std::vector<double> scores;
  std::vector<std::uint32_t> owners;
  bool in_use = false;  // an `accept` callback may itself search on the same thread
};

void AppendNumber(std::string& out, double value) {
  char buffer[64];
  const auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed, 2);
  out.append(buffer, result.ptr);
}

void AppendNumber(std::string& out, std::uint64_t value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

// One distinct query term with its statistics across the searched indexes.
struct QueryTerm {
  std::string_view term;
  std::uint32_t query_count = 0;
  std::uint64_t doc_frequency = 0;
  double idf = 0;
  std::vector<std::span<const Bm25Posting>> postings;  // per index, parallel to `indexes`
};

struct Candidate {
  std::uint64_t doc = 0;
  double score = 0;
  std::uint32_t owner = kNoOwner;  // position in `indexes` of the index that scored the doc
};

// Strict total order of the results: score descending, then doc ascending.
bool Better(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.doc < b.doc;
}

// Keeps the best `limit` candidates offered to it (a heap whose top is the worst kept one).
class TopK {
 public:
  explicit TopK(std::size_t limit) : limit_(limit) {}

  void Offer(const Candidate& candidate) {
    if (heap_.size() < limit_) {
      heap_.push_back(candidate);
      std::push_heap(heap_.begin(), heap_.end(), Better);
    } else if (Better(candidate, heap_.front())) {
      std::pop_heap(heap_.begin(), heap_.end(), Better);
      heap_.back() = candidate;
      std::push_heap(heap_.begin(), heap_.end(), Better);
    }
  }

  bool full() const { return heap_.size() >= limit_; }
  // The worst kept candidate; only when full().
  const Candidate& worst() const { return heap_.front(); }

  // Best first.
  std::vector<Candidate> Take() && {
    std::sort_heap(heap_.begin(), heap_.end(), Better);
    return std::move(heap_);
  }

 private:
  std::size_t limit_;
  std::vector<Candidate> heap_;
};

std::span<const Bm25Posting>::iterator FindPosting(std::span<const Bm25Posting> postings,
                                                   std::uint64_t doc) {
  const auto it = std::lower_bound(
      postings.begin(), postings.end(), doc,
      [](const Bm25Posting& posting, std::uint64_t value) { return posting.doc < value; });
  return it != postings.end() && it->doc == doc ? it : postings.end();
}

// Bounds are sums of the same non-negative contributions as the scores they bound, added in
// another order: a bound counts as below a threshold only when it stays below after this relative
// slack, far above the rounding of a few additions.
constexpr double kBoundSlack = 1e-9;

bool Below(double bound, double threshold) { return bound * (1 + kBoundSlack) < threshold; }

// The first index at or after `at` in `postings` whose doc is at least `doc`.
std::size_t Gallop(std::span<const Bm25Posting> postings, std::size_t at, std::uint64_t doc) {
  if (at >= postings.size() || postings[at].doc >= doc) return at;
  std::size_t step = 1;  // postings[at] is before `doc`; so is postings[at + step / 2] below
  while (at + step < postings.size() && postings[at + step].doc < doc) step *= 2;
  const auto first = postings.begin() + static_cast<std::ptrdiff_t>(at + step / 2);
  const auto last =
      postings.begin() + static_cast<std::ptrdiff_t>(std::min(at + step + 1, postings.size()));
  return static_cast<std::size_t>(
      std::lower_bound(first, last, doc,
                       [](const Bm25Posting& posting, std::uint64_t value) {
                         return posting.doc < value;
                       }) -
      postings.begin());
}

// Document at a time over the postings of one index (`owner` its position), MaxScore (Turtle and
// Flood 1995): each term's bound is its largest contribution over its postings. The terms sorted
// by bound, ascending, the first `skippable` of them have bounds that sum below the worst kept
// score θ once `limit` docs are kept: a doc holding none of the others cannot enter, so only the
// docs of the other (essential) terms are visited. A visited doc is bounded by its essential
// terms' contributions plus the others' bounds, then each other term's bound is replaced by its
// exact contribution (largest bound first), and the doc is dropped as soon as its bound falls
// below θ. Docs come in increasing order, so a later doc scoring exactly θ loses the tie anyway:
// every doc that can enter is scored, with its contributions added in query order as the
// term-at-a-time search adds them.
template <typename Offer>
void MaxScore(std::span<const QueryTerm> terms, std::span<const Bm25TermWeight> weights,
              std::uint32_t owner, const TopK& top, const Offer& offer, Bm25SearchStats& stats) {
  const std::size_t term_count = terms.size();
  std::vector<std::span<const Bm25Posting>> postings(term_count);
  std::vector<double> bounds(term_count, 0.0);
  for (std::size_t term_idx = 0; term_idx < term_count; ++term_idx) {
    postings[term_idx] = terms[term_idx].postings[owner];
    Bm25ScoreMax max(weights[term_idx]);
    for (const Bm25Posting& posting : postings[term_idx]) {
      max.Offer(posting.term_frequency, posting.doc_length);
    }
    bounds[term_idx] = max.Max();
  }
  std::vector<std::size_t> by_bound(term_count);
  for (std::size_t term_idx = 0; term_idx < term_count; ++term_idx) by_bound[term_idx] = term_idx;
  std::stable_sort(by_bound.begin(), by_bound.end(),
                   [&](std::size_t a, std::size_t b) { return bounds[a] < bounds[b]; });
  std::vector<double> prefix(term_count + 1, 0.0);  // bound sums of by_bound's prefixes
  for (std::size_t rank = 0; rank < term_count; ++rank) {
    prefix[rank + 1] = prefix[rank] + bounds[by_bound[rank]];
  }
  std::size_t skippable = 0;
  double threshold = -std::numeric_limits<double>::infinity();

  std::vector<std::size_t> cursors(term_count, 0);
  std::vector<double> contributions(term_count, 0.0);
  std::vector<char> present(term_count, 0);
  constexpr std::uint64_t kNoDoc = std::numeric_limits<std::uint64_t>::max();
  while (skippable < term_count) {
    std::uint64_t doc = kNoDoc;
    for (std::size_t rank = skippable; rank < term_count; ++rank) {
      const std::size_t term_idx = by_bound[rank];
      if (cursors[term_idx] < postings[term_idx].size()) {
        doc = std::min(doc, postings[term_idx][cursors[term_idx]].doc);
      }
    }
    if (doc == kNoDoc) break;
    ++stats.docs_visited;
    double bound = prefix[skippable];
    for (std::size_t rank = skippable; rank < term_count; ++rank) {
      const std::size_t term_idx = by_bound[rank];
      std::size_t& at = cursors[term_idx];
      present[term_idx] = at < postings[term_idx].size() && postings[term_idx][at].doc == doc;
      if (!present[term_idx]) continue;
      const Bm25Posting& posting = postings[term_idx][at++];
      contributions[term_idx] = weights[term_idx].Score(posting.term_frequency, posting.doc_length);
      bound += contributions[term_idx];
    }
    bool dropped = top.full() && Below(bound, threshold);
    for (std::size_t rank = skippable; rank-- > 0 && !dropped;) {
      const std::size_t term_idx = by_bound[rank];
      std::size_t& at = cursors[term_idx];
      at = Gallop(postings[term_idx], at, doc);
      present[term_idx] = at < postings[term_idx].size() && postings[term_idx][at].doc == doc;
      bound -= bounds[term_idx];
      if (present[term_idx]) {
        const Bm25Posting& posting = postings[term_idx][at];
        contributions[term_idx] =
            weights[term_idx].Score(posting.term_frequency, posting.doc_length);
        bound += contributions[term_idx];
      }
      dropped = top.full() && Below(bound, threshold);
    }
    if (dropped) continue;
    ++stats.docs_scored;
    double score = 0;
    for (std::size_t term_idx = 0; term_idx < term_count; ++term_idx) {
      if (present[term_idx]) score += contributions[term_idx];
    }
    offer(doc, score, owner);
    if (top.full()) {
      threshold = top.worst().score;
      while (skippable < term_count && Below(prefix[skippable + 1], threshold)) ++skippable;
    }
  }
}

}  // namespace

std::string Bm25Hit::Explain() const {
  std::string out = "bm25 ";
  AppendNumber(out, score);
  out += " =";
  for (std::size_t term_index = 0; term_index < terms.size(); ++term_index) {
    const Bm25TermExplanation& term = terms[term_index];
    out += term_index == 0 ? " " : " + ";
    out += term.term;
    out += '(';
    if (term.query_count > 1) {
      out += 'x';
      AppendNumber(out, std::uint64_t{term.query_count});
      out += ", ";
    }
    out += "tf ";
    AppendNumber(out, std::uint64_t{term.term_frequency});
    out += ", df ";
    AppendNumber(out, term.doc_frequency);
    out += ", idf ";
    AppendNumber(out, term.idf);
    out += ", ";
    AppendNumber(out, term.contribution);
    out += ')';
  }
  out += " [dl ";
  AppendNumber(out, std::uint64_t{doc_length});
  out += ", avgdl ";
  AppendNumber(out, average_length);
  out += ", N ";
  AppendNumber(out, doc_count);
  out += ']';
  return out;
}

// ---------------------------------------------------------------------------------------------
// Maintenance

std::uint32_t Bm25Index::InternTerm(std::string_view term) {
  const auto found = term_ids_.find(term);
  if (found != term_ids_.end()) return found->second;
  std::uint32_t term_id = 0;
  if (!free_term_ids_.empty()) {
    term_id = free_term_ids_.back();
    free_term_ids_.pop_back();
    terms_[term_id].term = std::string(term);
  } else {
    term_id = static_cast<std::uint32_t>(terms_.size());
    terms_.push_back(TermEntry{std::string(term), {}});
  }
  term_ids_.emplace(std::string(term), term_id);
  return term_id;
}

void Bm25Index::ReleaseTerm(std::uint32_t term_id) {
  TermEntry& entry = terms_[term_id];
  term_ids_.erase(entry.term);
  entry.term.clear();
  entry.postings = {};
  free_term_ids_.push_back(term_id);
}

void Bm25Index::Add(std::uint64_t doc, std::span<const std::string> terms) {
  Remove(doc);
  std::vector<std::string_view> sorted(terms.begin(), terms.end());
  std::sort(sorted.begin(), sorted.end());
  const auto length = static_cast<std::uint32_t>(
      std::min<std::size_t>(terms.size(), std::numeric_limits<std::uint32_t>::max()));

  DocEntry entry;
  entry.length = length;
  for (std::size_t run_begin = 0; run_begin < sorted.size();) {
    std::size_t run_end = run_begin + 1;
    while (run_end < sorted.size() && sorted[run_end] == sorted[run_begin]) ++run_end;
    const std::uint32_t term_id = InternTerm(sorted[run_begin]);
    const Bm25Posting posting{doc, static_cast<std::uint32_t>(run_end - run_begin), length};
    std::vector<Bm25Posting>& postings = terms_[term_id].postings;
    if (postings.empty() || postings.back().doc < doc) {
      postings.push_back(posting);
    } else {
      const auto position = std::lower_bound(
          postings.begin(), postings.end(), doc,
          [](const Bm25Posting& existing, std::uint64_t value) { return existing.doc < value; });
      postings.insert(position, posting);
    }
    entry.term_ids.push_back(term_id);
    run_begin = run_end;
  }
  posting_count_ += entry.term_ids.size();
  total_length_ += length;
  docs_.emplace(doc, std::move(entry));
}

bool Bm25Index::Remove(std::uint64_t doc) {
  const auto found = docs_.find(doc);
  if (found == docs_.end()) return false;
  for (const std::uint32_t term_id : found->second.term_ids) {
    std::vector<Bm25Posting>& postings = terms_[term_id].postings;
    const auto position = std::lower_bound(
        postings.begin(), postings.end(), doc,
        [](const Bm25Posting& existing, std::uint64_t value) { return existing.doc < value; });
    if (position != postings.end() && position->doc == doc) postings.erase(position);
    if (postings.empty()) ReleaseTerm(term_id);
  }
  posting_count_ -= found->second.term_ids.size();
  total_length_ -= found->second.length;
  docs_.erase(found);
  return true;
}

void Bm25Index::Clear() { *this = Bm25Index(); }

std::optional<std::uint32_t> Bm25Index::DocLength(std::uint64_t doc) const {
  const auto found = docs_.find(doc);
  if (found == docs_.end()) return std::nullopt;
  return found->second.length;
}

double Bm25Index::average_length() const {
  return docs_.empty() ? 0.0
                       : static_cast<double>(total_length_) / static_cast<double>(docs_.size());
}

void Bm25Index::ForEachTerm(const std::function<void(std::string_view term)>& visit) const {
  for (const TermEntry& entry : terms_) {
    if (!entry.term.empty() && !entry.postings.empty()) visit(entry.term);
  }
}

std::span<const Bm25Posting> Bm25Index::Postings(std::string_view term) const {
  const auto found = term_ids_.find(term);
  if (found == term_ids_.end()) return {};
  return terms_[found->second].postings;
}

bool Bm25Index::Holds(std::string_view term, std::uint64_t doc) const {
  return TermFrequency(term, doc) > 0;
}

std::uint32_t Bm25Index::TermFrequency(std::string_view term, std::uint64_t doc) const {
  const std::span<const Bm25Posting> postings = Postings(term);
  const auto found = FindPosting(postings, doc);
  return found == postings.end() ? 0 : found->term_frequency;
}

std::optional<std::string> Bm25Index::FirstDifference(const Bm25Index& other) const {
  if (doc_count() != other.doc_count()) {
    return "doc count " + std::to_string(doc_count()) + " != " + std::to_string(other.doc_count());
  }
  if (total_length() != other.total_length()) {
    return "total length " + std::to_string(total_length()) +
           " != " + std::to_string(other.total_length());
  }
  if (term_count() != other.term_count()) {
    return "term count " + std::to_string(term_count()) +
           " != " + std::to_string(other.term_count());
  }
  // Equal sizes: if every doc (term) of this index is in the other with equal content, the two
  // sets are equal.
  std::vector<std::uint64_t> docs;
  docs.reserve(docs_.size());
  for (const auto& [doc, entry] : docs_) docs.push_back(doc);
  std::sort(docs.begin(), docs.end());
  for (const std::uint64_t doc : docs) {
    const std::optional<std::uint32_t> other_length = other.DocLength(doc);
    if (!other_length.has_value()) return "doc " + std::to_string(doc) + " missing";
    if (*other_length != docs_.at(doc).length) {
      return "doc " + std::to_string(doc) + " length " + std::to_string(docs_.at(doc).length) +
             " != " + std::to_string(*other_length);
    }
  }
  std::vector<std::string_view> terms;
  terms.reserve(term_ids_.size());
  for (const auto& [term, term_id] : term_ids_) terms.push_back(term);
  std::sort(terms.begin(), terms.end());
  for (const std::string_view term : terms) {
    const std::span<const Bm25Posting> mine = Postings(term);
    const std::span<const Bm25Posting> theirs = other.Postings(term);
    if (!std::equal(mine.begin(), mine.end(), theirs.begin(), theirs.end())) {
      return "term '" + std::string(term) + "': postings differ (" + std::to_string(mine.size()) +
             " vs " + std::to_string(theirs.size()) + " docs)";
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Search

std::vector<Bm25Hit> Bm25Index::Search(std::span<const std::string> query_terms,
                                       const Bm25Config& config, std::size_t limit,
                                       const std::function<bool(std::uint64_t)>& accept) const {
  const Bm25Index* const self = this;
  return Search(std::span<const Bm25Index* const>(&self, 1), query_terms, config, limit, accept);
}

std::vector<Bm25Hit> Bm25Index::Search(std::span<const Bm25Index* const> indexes,
                                       std::span<const std::string> query_terms,
                                       const Bm25Config& config, std::size_t limit,
                                       const std::function<bool(std::uint64_t)>& accept,
                                       Bm25SearchStats* stats) {
  Bm25SearchStats local_stats;
  Bm25SearchStats& counts = stats != nullptr ? *stats : local_stats;
  counts = Bm25SearchStats{};
  if (limit == 0 || query_terms.empty()) return {};

  // Collection statistics, summed over the indexes.
  std::uint64_t doc_count = 0;
  std::uint64_t total_length = 0;
  for (const Bm25Index* index : indexes) {
    if (index == nullptr) continue;
    doc_count += index->doc_count();
    total_length += index->total_length();
  }
  if (doc_count == 0) return {};
  const double average_length = static_cast<double>(total_length) / static_cast<double>(doc_count);

  // Distinct query terms in order of first occurrence, with their statistics. Queries are short:
  // a linear scan for duplicates is cheaper than a hash set.
  std::vector<QueryTerm> terms;
  for (const std::string& term : query_terms) {
    const auto existing = std::find_if(terms.begin(), terms.end(),
                                       [&](const QueryTerm& query) { return query.term == term; });
    if (existing != terms.end()) {
      ++existing->query_count;
      continue;
    }
    QueryTerm query{term, 1, 0, 0, {}};
    query.postings.reserve(indexes.size());
    for (const Bm25Index* index : indexes) {
      query.postings.push_back(index == nullptr ? std::span<const Bm25Posting>()
                                                : index->Postings(term));
      query.doc_frequency += query.postings.back().size();
    }
    terms.push_back(std::move(query));
  }
  std::erase_if(terms, [](const QueryTerm& query) { return query.doc_frequency == 0; });
  if (terms.empty()) return {};

  std::vector<Bm25TermWeight> weights;
  std::uint64_t min_doc = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t max_doc = 0;
  std::uint64_t posting_total = 0;
  for (QueryTerm& query : terms) {
    query.idf = Bm25Idf(doc_count, query.doc_frequency);
    weights.emplace_back(query.idf, static_cast<double>(query.query_count), average_length, config);
    for (const std::span<const Bm25Posting> postings : query.postings) {
      if (postings.empty()) continue;
      min_doc = std::min(min_doc, postings.front().doc);
      max_doc = std::max(max_doc, postings.back().doc);
      posting_total += postings.size();
    }
  }

  TopK top(limit);
  const auto offer = [&](std::uint64_t doc, double score, std::uint32_t owner) {
    if (accept && !accept(doc)) return;
    top.Offer(Candidate{doc, score, owner});
  };
  // One index holds every posting: document at a time, skipping what cannot reach the top.
  std::uint32_t owner = kNoOwner;
  std::size_t non_null = 0;
  for (std::uint32_t index_pos = 0; index_pos < indexes.size(); ++index_pos) {
    if (indexes[index_pos] == nullptr) continue;
    ++non_null;
    owner = index_pos;
  }
  // Otherwise term-at-a-time accumulation, terms in query order, so each doc's score is the sum
  // of its contributions in exactly the order the explanation lists them.
  const std::uint64_t range = max_doc - min_doc;  // slots - 1; cannot overflow
  if (non_null == 1) {
    MaxScore(terms, weights, owner, top, offer, counts);
  } else if (range < kMaxDenseSlots && range < kDenseRangePerPosting * posting_total + kDenseRangeSlack) {
    const std::size_t slots = static_cast<std::size_t>(range) + 1;
    thread_local DenseScratch retained;
    DenseScratch temporary;
    DenseScratch& scratch = slots <= kMaxRetainedSlots && !retained.in_use ? retained : temporary;
    scratch.in_use = true;
    const struct Release {
      DenseScratch& scratch;
      ~Release() { scratch.in_use = false; }
    } release{scratch};
    scratch.scores.assign(slots, 0.0);
    scratch.owners.assign(slots, kNoOwner);
    std::vector<double>& scores = scratch.scores;
    std::vector<std::uint32_t>& owners = scratch.owners;
    for (std::size_t term_index = 0; term_index < terms.size(); ++term_index) {
      const Bm25TermWeight& weight = weights[term_index];
      for (std::uint32_t index_pos = 0; index_pos < terms[term_index].postings.size();
           ++index_pos) {
        for (const Bm25Posting& posting : terms[term_index].postings[index_pos]) {
          const std::size_t slot = static_cast<std::size_t>(posting.doc - min_doc);
          if (owners[slot] == kNoOwner) {
            owners[slot] = index_pos;
          } else if (owners[slot] != index_pos) {
            continue;  // the doc is in several indexes; another one scores it
          }
          scores[slot] += weight.Score(posting.term_frequency, posting.doc_length);
        }
      }
    }
    for (std::size_t slot = 0; slot < slots; ++slot) {
      if (owners[slot] == kNoOwner) continue;
      ++counts.docs_visited;
      ++counts.docs_scored;
      offer(min_doc + slot, scores[slot], owners[slot]);
    }
  } else {
    std::unordered_map<std::uint64_t, Candidate> accumulators;
    accumulators.reserve(static_cast<std::size_t>(posting_total));
    for (std::size_t term_index = 0; term_index < terms.size(); ++term_index) {
      const Bm25TermWeight& weight = weights[term_index];
      for (std::uint32_t index_pos = 0; index_pos < terms[term_index].postings.size();
           ++index_pos) {
        for (const Bm25Posting& posting : terms[term_index].postings[index_pos]) {
          Candidate& accumulator = accumulators[posting.doc];
          if (accumulator.owner == kNoOwner) {
            accumulator.doc = posting.doc;
            accumulator.owner = index_pos;
          } else if (accumulator.owner != index_pos) {
            continue;
          }
          accumulator.score += weight.Score(posting.term_frequency, posting.doc_length);
        }
      }
    }
    counts.docs_visited = counts.docs_scored = accumulators.size();
    for (const auto& [doc, accumulator] : accumulators) {
      offer(doc, accumulator.score, accumulator.owner);  // TopK's total order makes this
    }                                                    // iteration order irrelevant
  }

  // Explanations for the survivors only, recomputed with the same weights in the same order.
  std::vector<Bm25Hit> hits;
  for (const Candidate& candidate : std::move(top).Take()) {
    Bm25Hit hit;
    hit.doc = candidate.doc;
    hit.score = candidate.score;
    hit.doc_count = doc_count;
    hit.average_length = average_length;
    for (std::size_t term_index = 0; term_index < terms.size(); ++term_index) {
      const std::span<const Bm25Posting> postings = terms[term_index].postings[candidate.owner];
      const auto posting = FindPosting(postings, candidate.doc);
      if (posting == postings.end()) continue;
      hit.doc_length = posting->doc_length;
      hit.terms.push_back(Bm25TermExplanation{
          std::string(terms[term_index].term), terms[term_index].query_count,
          posting->term_frequency, terms[term_index].doc_frequency, terms[term_index].idf,
          weights[term_index].Score(posting->term_frequency, posting->doc_length)});
    }
    hits.push_back(std::move(hit));
  }
  return hits;
}

std::vector<Bm25QueryTerm> WeighQueryTerms(std::span<const std::string> terms,
                                           std::span<const Bm25Index* const> indexes) {
  std::uint64_t doc_count = 0;
  for (const Bm25Index* index : indexes) {
    if (index != nullptr) doc_count += index->doc_count();
  }
  std::vector<Bm25QueryTerm> weighted;
  for (const std::string& term : terms) {
    if (std::any_of(weighted.begin(), weighted.end(),
                    [&](const Bm25QueryTerm& known) { return known.term == term; })) {
      continue;
    }
    std::uint64_t doc_frequency = 0;
    for (const Bm25Index* index : indexes) {
      if (index != nullptr) doc_frequency += index->DocumentFrequency(term);
    }
    weighted.push_back({term, Bm25Idf(doc_count, doc_frequency)});
  }
  return weighted;
}

bool AnyHolds(std::span<const Bm25Index* const> indexes, std::string_view term,
              std::uint64_t doc) {
  return std::any_of(indexes.begin(), indexes.end(), [&](const Bm25Index* bm25) {
    return bm25 != nullptr && bm25->Holds(term, doc);
  });
}

}  // namespace engram::index
