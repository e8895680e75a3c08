// Tests of the Prometheus rendering: counters by route pattern, cumulative histogram buckets,
// recall stage timings and gauges.
#include "server/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace engram::server {
namespace {

using ::testing::HasSubstr;

TEST(MetricsTest, CountsRequestsByRouteMethodAndStatus) {
  Metrics metrics;
  metrics.RecordRequest("/v1/memories/{id}", "GET", 200, 0.002);
  metrics.RecordRequest("/v1/memories/{id}", "GET", 200, 0.03);
  metrics.RecordRequest("/v1/memories/{id}", "GET", 404, 0.0005);
  const std::string text = metrics.Render({});
  EXPECT_THAT(text, HasSubstr("engram_http_requests_total{route=\"/v1/memories/{id}\","
                              "method=\"GET\",status=\"200\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("engram_http_requests_total{route=\"/v1/memories/{id}\","
                              "method=\"GET\",status=\"404\"} 1\n"));
  // Cumulative buckets: 0.0005 <= 0.001; 0.002 <= 0.0025; 0.03 <= 0.05.
  EXPECT_THAT(text, HasSubstr("engram_http_request_duration_seconds_bucket{route=\"/v1/"
                              "memories/{id}\",le=\"0.001\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("engram_http_request_duration_seconds_bucket{route=\"/v1/"
                              "memories/{id}\",le=\"0.025\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("engram_http_request_duration_seconds_bucket{route=\"/v1/"
                              "memories/{id}\",le=\"0.05\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("engram_http_request_duration_seconds_bucket{route=\"/v1/"
                              "memories/{id}\",le=\"+Inf\"} 3\n"));
  EXPECT_THAT(
      text, HasSubstr("engram_http_request_duration_seconds_count{route=\"/v1/memories/{id}\"} 3"));
}

TEST(MetricsTest, RecallsAndGauges) {
  Metrics metrics;
  ReadResult result;
  result.latency_ms = 7;
  result.items.resize(3);
  result.diagnostics.dropped_by_budget = 2;
  result.diagnostics.timings = {{"route:bm25", 4.0}, {"pack", 1.0}};
  metrics.RecordRecall(result);
  metrics.RecordRecall(result);
  const std::string text = metrics.Render({{"engram_scopes", "Scopes.", 5}});
  EXPECT_THAT(text, HasSubstr("engram_recall_latency_seconds_bucket{le=\"0.01\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("engram_recall_latency_seconds_bucket{le=\"0.005\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("engram_recall_latency_seconds_count 2\n"));
  EXPECT_THAT(text, HasSubstr("engram_recall_stage_seconds_total{stage=\"route:bm25\"} 0.008\n"));
  EXPECT_THAT(text, HasSubstr("engram_recall_items_total 6\n"));
  EXPECT_THAT(text, HasSubstr("engram_recall_dropped_by_budget_total 4\n"));
  EXPECT_THAT(text, HasSubstr("engram_recall_degraded_total 0\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE engram_scopes gauge\nengram_scopes 5\n"));
}

TEST(MetricsTest, RecallsWithAWarningCountAsDegraded) {
  Metrics metrics;
  ReadResult clean;
  ReadResult degraded;
  degraded.diagnostics.warnings = {"word-vector matches off: not installed",
                                   "route vector failed and was left out: internal"};
  metrics.RecordRecall(clean);
  metrics.RecordRecall(degraded);
  metrics.RecordRecall(degraded);
  EXPECT_THAT(metrics.Render({}), HasSubstr("# TYPE engram_recall_degraded_total counter\n"
                                            "engram_recall_degraded_total 2\n"));
}

TEST(MetricsTest, LabelValuesAreEscaped) {
  Metrics metrics;
  metrics.RecordRequest("a\"b\\c", "GET", 200, 0.001);
  EXPECT_THAT(metrics.Render({}), HasSubstr("route=\"a\\\"b\\\\c\""));
}

}  // namespace
}  // namespace engram::server
