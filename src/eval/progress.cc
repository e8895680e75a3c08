// Progress bar on stderr (see progress.h).
#include "eval/progress.h"

#include <algorithm>
#include <cstdio>

namespace engram::eval {
namespace {

constexpr std::size_t kBarWidth = 24;
// Interactive redraws at most this often (the last question always redraws).
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);

std::string Clock(double seconds) {
  const auto total = static_cast<long long>(seconds + 0.5);
  char buffer[32];
  if (total >= 3600) {
    std::snprintf(buffer, sizeof(buffer), "%lld:%02lld:%02lld", total / 3600, total / 60 % 60,
                  total % 60);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%lld:%02lld", total / 60, total % 60);
  }
  return buffer;
}

}  // namespace

Progress::Progress(std::ostream* out, bool interactive, std::string label, std::string group_noun,
                   std::size_t groups, std::size_t questions)
    : out_(out),
      interactive_(interactive),
      label_(std::move(label)),
      group_noun_(std::move(group_noun)),
      groups_(groups),
      questions_(questions) {}

void Progress::StartGroup(std::string_view name) {
  ++groups_started_;
  if (out_ == nullptr) return;
  if (interactive_) {
    Draw("ingesting " + std::string(name));
  } else {
    *out_ << label_ << ": " << group_noun_ << " " << groups_started_ << "/" << groups_ << " ("
          << name << "), " << questions_done_ << "/" << questions_ << " questions, ETA " << Eta()
          << "\n";
  }
}

void Progress::QuestionDone() {
  ++questions_done_;
  if (out_ == nullptr) return;
  if (interactive_) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ >= kRedrawInterval || questions_done_ == questions_) Draw("");
    return;
  }
  const std::size_t decile = questions_ == 0 ? 10 : questions_done_ * 10 / questions_;
  if (decile > last_logged_decile_) {
    last_logged_decile_ = decile;
    *out_ << label_ << ": " << questions_done_ << "/" << questions_ << " questions, ETA " << Eta()
          << "\n";
  }
}

void Progress::Finish() {
  if (out_ == nullptr) return;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  if (interactive_) {
    Draw("");
    *out_ << "\n";
  }
  *out_ << label_ << ": " << questions_done_ << " questions in " << Clock(seconds) << "\n";
  out_->flush();
}

std::string Progress::Eta() const {
  if (questions_done_ == 0) return "-";  // nothing to extrapolate from yet
  if (questions_done_ >= questions_) return "0:00";
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const double per_question = seconds / static_cast<double>(questions_done_);
  return Clock(per_question * static_cast<double>(questions_ - questions_done_));
}

void Progress::Draw(std::string_view note) {
  last_draw_ = std::chrono::steady_clock::now();
  const std::size_t filled =
      questions_ == 0 ? 0 : std::min(kBarWidth, questions_done_ * kBarWidth / questions_);
  std::string line = "\r" + label_ + " [" + std::string(filled, '#') +
                     std::string(kBarWidth - filled, '.') + "] " + std::to_string(groups_started_) +
                     "/" + std::to_string(groups_) + " " + group_noun_ + "  " +
                     std::to_string(questions_done_) + "/" + std::to_string(questions_) +
                     " questions  ETA " + Eta();
  if (!note.empty()) line += "  " + std::string(note);
  line += "\x1b[K";  // clear the rest of the previous, possibly longer, line
  *out_ << line;
  out_->flush();
}

}  // namespace engram::eval
