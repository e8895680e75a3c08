// Prometheus counters and histograms of the server (see metrics.h).
#include "server/metrics.h"

#include <cstdio>
#include <sstream>

namespace engram::server {
namespace {

// A label value with \, " and newline escaped as the exposition format asks.
std::string Label(std::string_view value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

}  // namespace

void Metrics::Histogram::Observe(double seconds) {
  for (std::size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) {
      ++buckets[i];
      break;
    }
  }
  ++count;
  sum += seconds;
}

void Metrics::RecordRequest(std::string_view route, std::string_view method, int status,
                            double seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requests_[{std::string(route), std::string(method), status}];
  durations_[std::string(route)].Observe(seconds);
}

void Metrics::RecordRecall(const ReadResult& result) {
  std::lock_guard<std::mutex> lock(mutex_);
  recall_latency_.Observe(result.latency_ms / 1000.0);
  for (const StageTiming& timing : result.diagnostics.timings) {
    recall_stage_seconds_[timing.stage] += timing.ms / 1000.0;
  }
  recall_items_ += result.items.size();
  recall_dropped_by_budget_ += result.diagnostics.dropped_by_budget;
  if (!result.diagnostics.warnings.empty()) ++recall_degraded_;
}

std::string Metrics::Render(const std::vector<Gauge>& gauges) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::ostringstream out;
  auto histogram = [&out](const std::string& name, const std::string& labels, const Histogram& h) {
    const std::string sep = labels.empty() ? "" : ",";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += h.buckets[i];
      out << name << "_bucket{" << labels << sep << "le=\"" << Number(kBuckets[i]) << "\"} "
          << cumulative << "\n";
    }
    out << name << "_bucket{" << labels << sep << "le=\"+Inf\"} " << h.count << "\n";
    const std::string braces = labels.empty() ? "" : "{" + labels + "}";
    out << name << "_sum" << braces << " " << Number(h.sum) << "\n";
    out << name << "_count" << braces << " " << h.count << "\n";
  };

  out << "# HELP engram_http_requests_total HTTP requests by route pattern, method and status.\n"
      << "# TYPE engram_http_requests_total counter\n";
  for (const auto& [key, count] : requests_) {
    const auto& [route, method, status] = key;
    out << "engram_http_requests_total{route=\"" << Label(route) << "\",method=\"" << Label(method)
        << "\",status=\"" << status << "\"} " << count << "\n";
  }
  out << "# HELP engram_http_request_duration_seconds Time to serve a request, by route.\n"
      << "# TYPE engram_http_request_duration_seconds histogram\n";
  for (const auto& [route, h] : durations_) {
    histogram("engram_http_request_duration_seconds", "route=\"" + Label(route) + "\"", h);
  }
  out << "# HELP engram_recall_latency_seconds Recall latency as the engine reports it.\n"
      << "# TYPE engram_recall_latency_seconds histogram\n";
  histogram("engram_recall_latency_seconds", "", recall_latency_);
  out << "# HELP engram_recall_stage_seconds_total Time spent in each recall stage.\n"
      << "# TYPE engram_recall_stage_seconds_total counter\n";
  for (const auto& [stage, seconds] : recall_stage_seconds_) {
    out << "engram_recall_stage_seconds_total{stage=\"" << Label(stage) << "\"} " << Number(seconds)
        << "\n";
  }
  out << "# HELP engram_recall_items_total Items returned by recalls.\n"
      << "# TYPE engram_recall_items_total counter\n"
      << "engram_recall_items_total " << recall_items_ << "\n";
  out << "# HELP engram_recall_dropped_by_budget_total Ranked items that did not fit the token "
         "budget.\n"
      << "# TYPE engram_recall_dropped_by_budget_total counter\n"
      << "engram_recall_dropped_by_budget_total " << recall_dropped_by_budget_ << "\n";
  out << "# HELP engram_recall_degraded_total Recalls that answered with a warning (word vectors "
         "or lexicons missing, a route that failed).\n"
      << "# TYPE engram_recall_degraded_total counter\n"
      << "engram_recall_degraded_total " << recall_degraded_ << "\n";
  for (const Gauge& gauge : gauges) {
    out << "# HELP " << gauge.name << " " << gauge.help << "\n"
        << "# TYPE " << gauge.name << " gauge\n"
        << gauge.name << " " << Number(gauge.value) << "\n";
  }
  return out.str();
}

}  // namespace engram::server
