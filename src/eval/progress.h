// Progress: the progress bar `engram bench` draws on stderr while it ingests and asks, so a
// run of several minutes says how far it is and how long it still needs.
//
//   Progress progress(&std::cerr, /*interactive=*/isatty(2), "locomo", /*groups=*/5,
//                     /*questions=*/997);
//   progress.StartGroup("conv-26");   // "ingesting conv-26"
//   progress.QuestionDone();          // once per question
//   progress.Finish();
//
// Interactive output redraws one line with '\r':
//   locomo [#########...........] 2/5 conversations  412/997 questions  ETA 0:14
// Non-interactive output (a log file) writes a line at each group start and every 10% of the
// questions instead. A null stream disables all output. The ETA extrapolates the time spent so far
// over the questions done. Not thread-safe.
#ifndef ENGRAM_EVAL_PROGRESS_H_
#define ENGRAM_EVAL_PROGRESS_H_

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace engram::eval {

class Progress {
 public:
  // `group_noun` names the groups in the bar ("conversations", "haystacks").
  Progress(std::ostream* out, bool interactive, std::string label, std::string group_noun,
           std::size_t groups, std::size_t questions);

  void StartGroup(std::string_view name);
  void QuestionDone();
  // Adds `count` questions to the total (when it was not known up front).
  void AddQuestions(std::size_t count) { questions_ += count; }
  // Ends the bar with a newline and the total time.
  void Finish();

 private:
  void Draw(std::string_view note);
  std::string Eta() const;

  std::ostream* out_;
  bool interactive_;
  std::string label_;
  std::string group_noun_;
  std::size_t groups_;
  std::size_t questions_;
  std::size_t groups_started_ = 0;
  std::size_t questions_done_ = 0;
  std::size_t last_logged_decile_ = 0;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace engram::eval

#endif  // ENGRAM_EVAL_PROGRESS_H_
