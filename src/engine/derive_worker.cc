// The derivation worker (see derive_worker.h).
#include "engine/derive_worker.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <string_view>
#include <utility>

#include "engine/vector_projection.h"

namespace engram {
namespace {

constexpr std::string_view kCursorPrefix = "engine.derive.";
// How often an idle worker looks for work another engine left in the store (a server that
// crashed between the phases, on a PostgreSQL store shared by several servers).
constexpr std::chrono::seconds kPollInterval{2};
// A chunk is planned again when another engine derived the same turns meanwhile; this many
// attempts in a row without progress is an error.
constexpr int kMaxReplans = 50;

StatusOr<std::int64_t> ParseCursor(const std::string& key, const std::string& text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) {
    return Status::Corruption("meta " + key + " holds \"" + text.substr(0, 32) +
                              "\", not a sequence number");
  }
  return value;
}

}  // namespace

std::string DeriveCursorKey(std::string_view scope_node_id) {
  return std::string(kCursorPrefix) + std::string(scope_node_id);
}

Status MarkPending(store::Transaction& txn, const store::ScopeRecord& scope,
                   std::int64_t first_sequence) {
  const std::string key = DeriveCursorKey(scope.node_id);
  ASSIGN_OR_RETURN(const std::optional<std::string> existing, txn.GetMeta(key));
  if (existing.has_value()) {
    ASSIGN_OR_RETURN(const std::int64_t cursor, ParseCursor(key, *existing));
    if (cursor < first_sequence) return Status::Ok();  // earlier turns are pending already
  }
  return txn.SetMeta(key, std::to_string(first_sequence - 1));
}

DeriveWorker::DeriveWorker(DeriveWorkerDeps deps) : deps_(std::move(deps)) {}

DeriveWorker::~DeriveWorker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  idle_.notify_all();
  captures_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DeriveWorker::Start() {
  std::lock_guard lock(mutex_);
  if (!deps_.background || thread_.joinable() || stop_) return;
  requested_ = true;
  thread_ = std::thread([this] { Run(); });
}

void DeriveWorker::Notify() {
  {
    std::lock_guard lock(mutex_);
    requested_ = true;
  }
  Start();
  wake_.notify_all();
}

Status DeriveWorker::WaitIdle() {
  if (!deps_.background) {
    std::lock_guard write_lock(*deps_.write_mutex);
    return DrainAllLocked();
  }
  Notify();
  std::unique_lock lock(mutex_);
  // A pass that starts after this point covers everything pending now.
  const std::int64_t target = passes_started_ + 1;
  idle_.wait(lock, [&] { return stop_ || passes_finished_ >= target; });
  if (passes_finished_ < target) {
    return Status::Unavailable(
        "the engine is closing; pending derivations resume when the "
        "store is opened again");
  }
  return last_pass_status_;
}

StatusOr<DeriveProgress> DeriveWorker::Progress() {
  DeriveProgress progress;
  ASSIGN_OR_RETURN(const auto cursors, deps_.store->ListMeta(kCursorPrefix));
  for (const auto& [key, value] : cursors) {
    ASSIGN_OR_RETURN(const std::int64_t cursor, ParseCursor(key, value));
    StatusOr<store::NodeRecord> scope_node =
        deps_.store->GetNode(std::string_view(key).substr(kCursorPrefix.size()));
    if (scope_node.status().code() == StatusCode::kNotFound) continue;  // erased; removed soon
    RETURN_IF_ERROR(scope_node.status());
    ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> scope,
                     deps_.store->GetScope(scope_node->scope_id));
    if (!scope.has_value() || scope->last_sequence <= cursor) continue;
    // Sequence numbers are handed out to turns only, so the gap counts the pending turns.
    progress.pending_turns += scope->last_sequence - cursor;
    ++progress.pending_scopes;
  }
  std::lock_guard lock(mutex_);
  progress.derived_turns = derived_turns_;
  progress.failures = failures_;
  progress.last_error = last_error_;
  progress.refused_writes = refused_writes_;
  progress.max_pending_turns = deps_.max_pending_turns;
  // Admit's count follows the store again (turns another engine captured or derived included).
  pending_estimate_ = progress.pending_turns;
  return progress;
}

Status DeriveWorker::Admit() {
  if (deps_.max_pending_turns <= 0) return Status::Ok();
  std::lock_guard lock(mutex_);
  if (pending_estimate_ < deps_.max_pending_turns) return Status::Ok();
  ++refused_writes_;
  // The turns to derive before the backlog is under the limit, at the rate derived so far.
  int seconds = 1;
  if (first_derived_.has_value() && derived_turns_ > 0) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - *first_derived_).count();
    if (elapsed > 0) {
      const double rate = static_cast<double>(derived_turns_) / elapsed;
      const double excess = static_cast<double>(pending_estimate_ - deps_.max_pending_turns + 1);
      seconds = static_cast<int>(std::clamp(std::ceil(excess / rate), 1.0, 60.0));
    }
  }
  return Status::Unavailable("write refused: " + std::to_string(pending_estimate_) +
                             " turns await derivation, at or over [write] max_pending_turns = " +
                             std::to_string(deps_.max_pending_turns) +
                             "; nothing was stored; retry after " + std::to_string(seconds) + " s");
}

std::optional<int> RetryAfterSeconds(const Status& status) {
  if (status.code() != StatusCode::kUnavailable) return std::nullopt;
  constexpr std::string_view kHint = "; retry after ";
  const std::string& message = status.message();
  const std::size_t at = message.rfind(kHint);
  if (at == std::string::npos) return std::nullopt;
  int seconds = 0;
  const char* begin = message.data() + at + kHint.size();
  const char* end = message.data() + message.size();
  const auto [next, error] = std::from_chars(begin, end, seconds);
  if (error != std::errc() || std::string_view(next, end) != " s" || seconds < 1) {
    return std::nullopt;
  }
  return seconds;
}

void DeriveWorker::CaptureStarted() {
  std::lock_guard lock(mutex_);
  ++captures_in_flight_;
}

void DeriveWorker::CaptureFinished(std::int64_t pending_turns) {
  {
    std::lock_guard lock(mutex_);
    --captures_in_flight_;
    last_capture_end_ = std::chrono::steady_clock::now();
    backlog_ += pending_turns;
    pending_estimate_ += pending_turns;
  }
  captures_.notify_all();
}

bool DeriveWorker::YieldToCaptures() {
  std::unique_lock lock(mutex_);
  if (deps_.yield_backlog <= 0) return !stop_;
  while (!stop_ && backlog_ < deps_.yield_backlog) {
    if (captures_in_flight_ > 0) {
      if (deps_.on_yield) deps_.on_yield();
      captures_.wait(lock);
      continue;
    }
    const auto quiet_until = last_capture_end_ + deps_.capture_quiet;
    if (std::chrono::steady_clock::now() >= quiet_until) break;
    captures_.wait_until(lock, quiet_until);
  }
  return !stop_;
}

Status DeriveWorker::DrainScopeLocked(const store::ScopeRecord& scope) {
  return DrainKey(DeriveCursorKey(scope.node_id), /*lock_held=*/true);
}

Status DeriveWorker::DrainAllLocked() {
  ASSIGN_OR_RETURN(const auto cursors, deps_.store->ListMeta(kCursorPrefix));
  for (const auto& entry : cursors) RETURN_IF_ERROR(DrainKey(entry.first, /*lock_held=*/true));
  return Status::Ok();
}

bool DeriveWorker::stopping() {
  std::lock_guard lock(mutex_);
  return stop_;
}

void DeriveWorker::Run() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    if (!requested_) {
      // Woken by Notify, or after the poll interval to look for other engines' leftovers.
      wake_.wait_for(lock, kPollInterval, [&] { return stop_ || requested_; });
      if (stop_) break;
    }
    requested_ = false;
    const std::int64_t number = ++passes_started_;
    lock.unlock();
    const Status status = Pass();
    lock.lock();
    passes_finished_ = number;
    last_pass_status_ = status;
    if (status.ok()) last_error_ = Status::Ok();
    idle_.notify_all();
  }
  idle_.notify_all();
}

Status DeriveWorker::Pass() {
  ASSIGN_OR_RETURN(const auto cursors, deps_.store->ListMeta(kCursorPrefix));
  Status first_error;
  for (const auto& entry : cursors) {
    if (stopping()) break;
    Status drained = DrainKey(entry.first, /*lock_held=*/false);
    // One scope's failure does not hold the others back; the first one is reported.
    if (!drained.ok() && first_error.ok()) first_error = std::move(drained);
  }
  return first_error;
}

Status DeriveWorker::DrainKey(const std::string& key, bool lock_held) {
  int replans = 0;
  std::int64_t drain_first = 0;  // first sequence this drain derived; 0 = none yet
  while (lock_held || !stopping()) {
    Chunk chunk;
    StatusOr<ChunkOutcome> outcome = DeriveChunk(key, lock_held, &chunk);
    if (!outcome.ok()) {
      std::lock_guard lock(mutex_);
      ++failures_;
      last_error_ = outcome.status();
      return outcome.status();
    }
    if (*outcome == ChunkOutcome::kNothingPending) return Status::Ok();
    if (*outcome == ChunkOutcome::kDerived) {
      replans = 0;
      if (drain_first == 0) drain_first = chunk.first_sequence;
      if (chunk.caught_up && deps_.after_caught_up) {
        std::unique_lock<std::mutex> write_lock;
        if (!lock_held) write_lock = std::unique_lock<std::mutex>(*deps_.write_mutex);
        deps_.after_caught_up(chunk.scope, drain_first, chunk.last_sequence, chunk.now);
        drain_first = 0;
      }
    } else if (++replans == kMaxReplans) {
      return Status::Unavailable("derivation of " + key + " was planned " +
                                 std::to_string(kMaxReplans) +
                                 " times while other writers moved its cursor; retry");
    }
  }
  return Status::Ok();
}

StatusOr<std::optional<DeriveWorker::Plan>> DeriveWorker::PlanChunk(
    const std::string& key, const std::optional<std::string>& cursor_text,
    store::Transaction* txn) {
  if (!cursor_text.has_value()) return std::optional<Plan>();
  Plan plan;
  plan.key = key;
  ASSIGN_OR_RETURN(plan.cursor, ParseCursor(key, *cursor_text));
  const std::string_view scope_node_id = std::string_view(key).substr(kCursorPrefix.size());
  StatusOr<store::NodeRecord> scope_node =
      txn != nullptr ? txn->GetNode(scope_node_id) : deps_.store->GetNode(scope_node_id);
  if (scope_node.status().code() == StatusCode::kNotFound) {
    return std::optional<Plan>(std::move(plan));  // the scope was erased: no turns
  }
  RETURN_IF_ERROR(scope_node.status());
  store::NodeFilter filter;
  filter.kind = NodeKind::kTurn;
  filter.after_sequence = plan.cursor;
  filter.limit = kDeriveChunkTurns;
  filter.include_inactive = true;
  ASSIGN_OR_RETURN(plan.turns, txn != nullptr
                                   ? txn->ListNodes(scope_node->scope_id, filter)
                                   : deps_.store->ListNodes(scope_node->scope_id, filter));
  // One chunk = turns captured at the same instant: derived with that instant as "now".
  std::size_t same_capture = 0;
  while (same_capture < plan.turns.size() &&
         plan.turns[same_capture].ingested_at == plan.turns.front().ingested_at) {
    ++same_capture;
  }
  plan.turns.resize(same_capture);
  return std::optional<Plan>(std::move(plan));
}

StatusOr<DeriveWorker::ChunkOutcome> DeriveWorker::DeriveChunk(const std::string& key,
                                                               bool lock_held, Chunk* chunk) {
  const bool has_vectors = deps_.model_id != "none";
  auto embed = [&](Plan& plan) -> Status {
    if (!has_vectors || plan.turns.empty()) return Status::Ok();
    std::vector<std::string> texts;
    texts.reserve(plan.turns.size());
    for (const store::NodeRecord& turn : plan.turns) {
      texts.push_back(EmbeddingText(turn.speaker, turn.text));
    }
    ASSIGN_OR_RETURN(plan.vectors, deps_.embed(texts));
    return Status::Ok();
  };

  // Plan and embed from committed reads, with no lock held; the encoder runs once captures
  // pause (it would take the cores from them).
  std::optional<Plan> planned;
  if (!lock_held) {
    std::optional<std::string> cursor_text;
    ASSIGN_OR_RETURN(const auto cursors, deps_.store->ListMeta(key));
    for (const auto& [found_key, value] : cursors) {
      if (found_key == key) cursor_text = value;
    }
    ASSIGN_OR_RETURN(planned, PlanChunk(key, cursor_text, nullptr));
    if (!planned.has_value()) return ChunkOutcome::kNothingPending;
    if (!YieldToCaptures()) return ChunkOutcome::kNothingPending;  // stopping
    RETURN_IF_ERROR(embed(*planned).WithContext("embedding turns of " + key));
  }

  std::unique_lock<std::mutex> write_lock;
  if (!lock_held) {
    if (!YieldToCaptures()) return ChunkOutcome::kNothingPending;  // again, after the encoder
    write_lock = std::unique_lock<std::mutex>(*deps_.write_mutex);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<store::Transaction> txn, deps_.store->BeginWrite());
  // Re-check inside the transaction: another engine sharing the store may have derived them.
  ASSIGN_OR_RETURN(const std::optional<std::string> cursor_text, txn->GetMeta(key));
  ASSIGN_OR_RETURN(std::optional<Plan> current, PlanChunk(key, cursor_text, txn.get()));
  if (!current.has_value()) return ChunkOutcome::kNothingPending;
  if (planned.has_value()) {
    bool same =
        planned->cursor == current->cursor && planned->turns.size() == current->turns.size();
    for (std::size_t turn_idx = 0; same && turn_idx < current->turns.size(); ++turn_idx) {
      same = planned->turns[turn_idx].id == current->turns[turn_idx].id;
    }
    if (!same) return ChunkOutcome::kReplan;
    current->vectors = std::move(planned->vectors);
  } else {
    RETURN_IF_ERROR(embed(*current).WithContext("embedding turns of " + key));
  }
  if (current->turns.empty()) {
    // Nothing left (the scope was erased, or its last turns were derived): drop the cursor.
    RETURN_IF_ERROR(txn->DeleteMeta(key));
    RETURN_IF_ERROR(txn->Commit());
    return ChunkOutcome::kNothingPending;
  }

  const std::vector<store::NodeRecord>& turns = current->turns;
  const std::string scope_node_id(std::string_view(key).substr(kCursorPrefix.size()));
  ASSIGN_OR_RETURN(const store::NodeRecord scope_node, txn->GetNode(scope_node_id));
  ASSIGN_OR_RETURN(const std::optional<store::ScopeRecord> scope, txn->FindScope(scope_node.text));
  if (!scope.has_value()) {
    return Status::Corruption("scope node " + scope_node_id + " names scope \"" + scope_node.text +
                              "\", which does not exist");
  }
  std::vector<std::string> turn_ids;
  turn_ids.reserve(turns.size());
  for (std::size_t turn_idx = 0; turn_idx < turns.size(); ++turn_idx) {
    turn_ids.push_back(turns[turn_idx].id);
    if (turn_idx < current->vectors.size()) {
      RETURN_IF_ERROR(
          txn->PutVector(turns[turn_idx].id, deps_.model_id, current->vectors[turn_idx]));
    }
  }
  write::DeriveContext derive;
  derive.scope = &*scope;
  derive.now = turns.front().ingested_at;  // the capture's time, as a synchronous write has it
  derive.turn_vectors = current->vectors;
  derive.store = deps_.store;
  if (has_vectors && deps_.resolver_embedder) {
    ASSIGN_OR_RETURN(derive.embedder, deps_.resolver_embedder());
  }
  const std::int64_t first_sequence = turns.front().sequence;
  const std::int64_t last_sequence = turns.back().sequence;
  RETURN_IF_ERROR(deps_.deriver->Derive(*txn, *deps_.registry, turn_ids, derive)
                      .WithContext("deriving turns " + std::to_string(first_sequence) + ".." +
                                   std::to_string(last_sequence) + " of scope " + scope->path));
  store::NodeFilter after;
  after.kind = NodeKind::kTurn;
  after.after_sequence = last_sequence;
  after.limit = 1;
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> remaining,
                   txn->ListNodes(scope->scope_id, after));
  if (remaining.empty()) {
    RETURN_IF_ERROR(txn->DeleteMeta(key));
  } else {
    RETURN_IF_ERROR(txn->SetMeta(key, std::to_string(last_sequence)));
  }
  RETURN_IF_ERROR(txn->Commit());
  txn.reset();
  if (deps_.after_commit) deps_.after_commit();
  {
    std::lock_guard lock(mutex_);
    derived_turns_ += static_cast<std::int64_t>(turns.size());
    // Turns another engine captured, or that were pending when this one opened, are not in the
    // backlog: it never goes below zero.
    backlog_ = std::max<std::int64_t>(0, backlog_ - static_cast<std::int64_t>(turns.size()));
    pending_estimate_ =
        std::max<std::int64_t>(0, pending_estimate_ - static_cast<std::int64_t>(turns.size()));
    if (!first_derived_.has_value()) first_derived_ = std::chrono::steady_clock::now();
  }
  if (chunk != nullptr) {
    chunk->scope = *scope;
    chunk->first_sequence = first_sequence;
    chunk->last_sequence = last_sequence;
    chunk->now = derive.now;
    chunk->caught_up = remaining.empty();
  }
  return ChunkOutcome::kDerived;
}

}  // namespace engram
