// Metrics: the counters and histograms of `engram serve`, rendered in the Prometheus text
// exposition format at /metrics.
//
//   engram_http_requests_total{route="/v1/memories/{id}",method="GET",status="200"} 3
//   engram_http_request_duration_seconds_bucket{route="/v1/memories/{id}",le="0.005"} 3
//   engram_recall_latency_seconds_bucket{le="0.05"} 7      (ReadResult::latency_ms)
//   engram_recall_stage_seconds_total{stage="route:bm25"}  (ReadResult diagnostics timings)
//   engram_recall_items_total, engram_recall_dropped_by_budget_total,
//   engram_recall_degraded_total (recalls with a diagnostics warning)
//   engram_store_size_bytes, engram_scopes                 (gauges the server samples on render)
//
// Routes are labelled by their pattern ("/v1/memories/{id}"), never the raw path, so label
// cardinality is bounded by the route table.
//
// Thread-safety: every method may be called concurrently (one mutex).
#ifndef ENGRAM_SERVER_METRICS_H_
#define ENGRAM_SERVER_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "engram/read_result.h"

namespace engram::server {

// A gauge sampled when /metrics is rendered.
struct Gauge {
  std::string name;  // "engram_store_size_bytes"
  std::string help;
  double value = 0;
};

class Metrics {
 public:
  // Upper bounds of the latency histogram buckets, in seconds (+Inf is implicit).
  static constexpr std::array<double, 12> kBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                      0.1,   0.25,   0.5,   1.0,  2.5,   10.0};

  void RecordRequest(std::string_view route, std::string_view method, int status, double seconds);
  void RecordRecall(const ReadResult& result);

  // The whole exposition text, the gauges after the counters.
  std::string Render(const std::vector<Gauge>& gauges) const;

 private:
  struct Histogram {
    std::array<std::uint64_t, kBuckets.size()> buckets{};  // non-cumulative counts
    std::uint64_t count = 0;
    double sum = 0;
    void Observe(double seconds);
  };

  mutable std::mutex mutex_;
  std::map<std::tuple<std::string, std::string, int>, std::uint64_t> requests_;
  std::map<std::string, Histogram> durations_;  // by route
  Histogram recall_latency_;
  std::map<std::string, double> recall_stage_seconds_;
  std::uint64_t recall_items_ = 0;
  std::uint64_t recall_dropped_by_budget_ = 0;
  std::uint64_t recall_degraded_ = 0;  // recalls whose diagnostics carry a warning
};

}  // namespace engram::server

#endif  // ENGRAM_SERVER_METRICS_H_
