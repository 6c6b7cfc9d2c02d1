// `strata ui`'s JSON routes and static files, over a real process, with httplib's client and
// curl: what each route says about the fixture's hub (dashboard_fixture.hpp), a run's curves
// growing while it trains, refusals (bad ids, unknown runs, writes, paths that climb out of
// the Chart.js folder), and the token.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "serve/command_output.hpp"
#include "serve/dashboard_fixture.hpp"

namespace strata::testing {
namespace {

using nlohmann::json;

json get_json(const ServeProcess& ui, const std::string& path, int expected_status = 200) {
  auto res = ui.client().Get(path);
  EXPECT_TRUE(res) << path;
  if (!res) return {};
  EXPECT_EQ(res->status, expected_status) << path << ": " << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << path;
  return json::parse(res->body);
}

TEST_F(DashboardTest, ListsProjectsModelsRunsDatasetsAndPlans) {
  auto& ui = start();
  EXPECT_EQ(get_json(ui, "/api/projects")["projects"], json::array({"default", "team"}));

  const json models = get_json(ui, "/api/models?project=default");
  EXPECT_EQ(models["truncated"], false);
  ASSERT_EQ(models["rows"].size(), 2u);
  const json& hostile = models["rows"][0];  // names in order: '<' sorts before 'm'
  EXPECT_EQ(hostile["name"], kHostileName);
  const json& mlp = models["rows"][1];
  EXPECT_EQ(mlp["name"], "mlp");
  ASSERT_EQ(mlp["versions"].size(), 2u);
  EXPECT_EQ(mlp["versions"][0]["version"], 2);  // newest first
  EXPECT_EQ(mlp["versions"][0]["metrics"]["accuracy"], 0.87);
  EXPECT_EQ(mlp["versions"][1]["metrics"]["loss"], 0.52);
  EXPECT_EQ(get_json(ui, "/api/models?project=team")["rows"][0]["name"], "other");
  EXPECT_EQ(get_json(ui, "/api/models")["rows"].size(), 2u);  // no project: "default"

  const json runs = get_json(ui, "/api/runs?project=default")["rows"];
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["name"], "still-training");
  EXPECT_EQ(runs[0]["status"], "running");
  EXPECT_EQ(runs[1]["name"], "fashion-cnn");
  EXPECT_EQ(runs[1]["status"], "finished");

  const json datasets = get_json(ui, "/api/datasets?project=default")["rows"];
  ASSERT_EQ(datasets.size(), 1u);
  EXPECT_EQ(datasets[0]["name"], "fashion-mnist-small");
  EXPECT_EQ(datasets[0]["description"], "a tiny slice");
  EXPECT_EQ(datasets[0]["entries"], 1);

  const json plans = get_json(ui, "/api/plans?project=default")["rows"];
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0]["name"], "cnn-then-rnn");
  ASSERT_EQ(plans[0]["tasks"].size(), 2u);
  EXPECT_EQ(plans[0]["tasks"][0]["name"], "train-cnn");
  EXPECT_EQ(plans[0]["tasks"][0]["status"], "cancelled");
  EXPECT_EQ(plans[0]["tasks"][0]["error"], "stopped by the test");
  EXPECT_EQ(plans[0]["tasks"][1]["status"], "cancelled");  // its dependent goes with it
  EXPECT_EQ(plans[0]["counts"]["cancelled"], 2);
  EXPECT_EQ(get_json(ui, "/api/plans?project=team")["rows"], json::array());
}

TEST_F(DashboardTest, RunCurvesGrowWhileTheRunTrains) {
  auto& ui = start();
  const json run = get_json(ui, "/api/runs/" + std::to_string(finished_run_));
  EXPECT_EQ(run["name"], "fashion-cnn");
  EXPECT_EQ(run["config"]["lr"], 0.01);
  ASSERT_EQ(run["series"].size(), 3u);  // by name, then split
  EXPECT_EQ(run["series"][0]["name"], "accuracy");
  EXPECT_EQ(run["series"][0]["split"], "train");
  EXPECT_EQ(run["series"][0]["steps"], json::array({0, 1, 2}));
  EXPECT_EQ(run["series"][1]["split"], "validation");
  EXPECT_DOUBLE_EQ(run["series"][1]["values"][2].get<double>(), 0.55 + 0.1 * 2);
  EXPECT_EQ(run["series"][2]["name"], "loss");
  EXPECT_DOUBLE_EQ(run["series"][2]["values"][1].get<double>(), 0.5);
  ASSERT_EQ(run["events"].size(), 1u);
  EXPECT_EQ(run["events"][0]["payload"]["epochs_trained"], 3);

  const std::string live = "/api/runs/" + std::to_string(running_->id());
  EXPECT_EQ(get_json(ui, live)["series"][0]["values"], json::array({2.5}));
  running_->log(1, hub::Split::train, "loss", 1.5);
  running_->flush();
  EXPECT_EQ(get_json(ui, live)["series"][0]["values"], json::array({2.5, 1.5}));
  running_->finish();
  EXPECT_EQ(get_json(ui, live)["status"], "finished");
}

TEST_F(DashboardTest, LongSeriesAreThinnedKeepingTheEnds) {
  hub_->set_project("default");
  auto run = hub_->create_run("long");
  for (int64_t step = 0; step <= 5000; ++step) run.log(step, hub::Split::train, "batch_loss", 1.0 / (step + 1));
  run.finish();
  auto& ui = start();
  const json series = get_json(ui, "/api/runs/" + std::to_string(run.id()))["series"][0];
  EXPECT_EQ(series["thinned"], true);
  const auto steps = series["steps"].get<std::vector<int64_t>>();
  ASSERT_EQ(steps.size(), 1668u);  // steps 0..5000 spaced by 3 (5000 / 2000 + 1), and the last
  EXPECT_EQ(steps.front(), 0);
  EXPECT_EQ(steps[1], 3);
  EXPECT_EQ(steps.back(), 5000);
  EXPECT_DOUBLE_EQ(series["values"].back().get<double>(), 1.0 / 5001);
}

// A run that logged more metric series than a page can chart shows the first ones, by name,
// and says so (a page of 100,000 charts would not render).
TEST_F(DashboardTest, ARunOfManySeriesShowsTheFirstOnes) {
  hub_->set_project("default");
  auto run = hub_->create_run("wide");
  constexpr int64_t kSeries = 200;  // src/serve/hub_view.hpp's HubView::kSeries
  const int64_t logged = kSeries + 5;
  for (int64_t i = 0; i < logged; ++i) run.log(0, hub::Split::train, "metric_" + std::to_string(1000 + i), i);
  run.finish();
  auto& ui = start();
  const json page = get_json(ui, "/api/runs/" + std::to_string(run.id()));
  EXPECT_EQ(page["series_truncated"], true);
  ASSERT_EQ(page["series"].size(), static_cast<size_t>(kSeries));
  EXPECT_EQ(page["series"][0]["name"], "metric_1000");
  EXPECT_EQ(page["series"].back()["name"], "metric_" + std::to_string(1000 + kSeries - 1));
  EXPECT_EQ(get_json(ui, "/api/runs/" + std::to_string(finished_run_))["series_truncated"], false);
}

// A run's page shows its newest events, so what a training run logs last keeps appearing
// (it showed the first 1000 for ever), and says when there are more.
TEST_F(DashboardTest, ARunShowsItsNewestEvents) {
  hub_->set_project("default");
  auto run = hub_->create_run("long-lived");
  constexpr int kRows = 1000;  // src/serve/hub_view.hpp's HubView::kRows
  for (int i = 0; i < kRows + 5; ++i) run.event("epoch_end", "{\"epoch\": " + std::to_string(i) + "}");
  run.finish();
  auto& ui = start();
  const json page = get_json(ui, "/api/runs/" + std::to_string(run.id()));
  EXPECT_EQ(page["events_truncated"], true);
  ASSERT_EQ(page["events"].size(), static_cast<size_t>(kRows));
  EXPECT_EQ(page["events"][0]["payload"]["epoch"], 5);
  EXPECT_EQ(page["events"].back()["payload"]["epoch"], kRows + 4);
  EXPECT_EQ(get_json(ui, "/api/runs/" + std::to_string(finished_run_))["events_truncated"], false);
}

TEST_F(DashboardTest, RefusesBadIdsUnknownRunsAndWrites) {
  auto& ui = start();
  EXPECT_NE(get_json(ui, "/api/runs/abc", 400)["error"].get<std::string>().find("'abc'"), std::string::npos);
  EXPECT_EQ(get_json(ui, "/api/runs/0", 400).contains("error"), true);
  EXPECT_EQ(get_json(ui, "/api/runs/99999999999999999999", 400).contains("error"), true);
  EXPECT_EQ(get_json(ui, "/api/runs/999", 404)["error"], "no run 999");
  auto res = ui.client().Post("/api/projects", "{}", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);  // nothing writes
  res = ui.client().Delete("/api/runs/1");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(get_json(ui, "/api/projects")["projects"].size(), 2u);  // still serving
}

// A run's config and event payloads are shown parsed, but hub rows are hostile too: JSON nested
// 100,000 deep (valid JSON, so Hub::create_run stores it) is shown as its text instead, since
// writing it out again recurses once per level.
TEST_F(DashboardTest, DeeplyNestedConfigsAndEventsAreShownAsText) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  auto run = hub_->create_run("deep", deep);
  run.event("note", deep);
  run.finish();
  auto& ui = start();
  const json shown = get_json(ui, "/api/runs/" + std::to_string(run.id()));
  EXPECT_EQ(shown["config"], deep);
  EXPECT_EQ(shown["events"][0]["payload"], deep);
  EXPECT_EQ(get_json(ui, "/api/runs/" + std::to_string(finished_run_))["config"]["lr"], 0.01);  // shallow: parsed
}

TEST_F(DashboardTest, StaticFilesComeOnlyFromMemoryAndTheChartJsFolder) {
  auto& ui = start();
  auto res = ui.client().Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->body.find("<script src=\"/chart.js/chart.min.js\">"), std::string::npos);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(res->get_header_value("Content-Security-Policy").find("default-src 'self'"), std::string::npos);
  res = ui.client().Get("/ui/dashboard.js");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->body.find("textContent"), std::string::npos);
  res = ui.client().Get("/chart.js/chart.min.js");
  ASSERT_TRUE(res);
  if (res->status == 404) GTEST_SKIP() << "libjs-chart.js is not installed (scripts/install-deps)";
  EXPECT_EQ(res->status, 200);
  EXPECT_TRUE(res->body.starts_with("/*!\n * Chart.js")) << res->body.substr(0, 40);

  // curl sends these paths as written (--path-as-is): none may leave the folder or the table.
  const std::string base = "http://127.0.0.1:" + std::to_string(ui.port());
  for (const std::string path :
       {"/chart.js/../../../../etc/passwd", "/chart.js/..%2F..%2F..%2F..%2Fetc%2Fpasswd", "/chart.js/%2e%2e",
        "/chart.js/..", "/chart.js/.hidden", "/chart.js/chunks", "/chart.js/%2Fetc%2Fpasswd", "/ui/../CMakeLists.txt",
        "/ui/..%2F..%2Fhub_view.cpp", "/ui/no-such-file.js", "/chart.js/chart.min.js%00.png"}) {
    const std::string status = command_output("curl -s --path-as-is -o /dev/null -w '%{http_code}' '" + base + path + "'");
    EXPECT_EQ(status, "404") << path;
  }
}

// A Chart.js folder without Chart.js: the dashboard serves, and says at start that it will draw no
// curve (the page's only sign of it was an empty chart).
TEST_F(DashboardTest, AChartJsFolderWithoutChartJsIsWarnedAbout) {
  const std::string said = command_output("timeout 2 " + std::string(STRATA_CLI_PATH) + " ui --hub '" + hub_path_ +
                                          "' --port 0 --chart-js-dir '" + path("empty") + "' 2>&1; true");
  EXPECT_NE(said.find("strata ui: listening on"), std::string::npos) << said;
  EXPECT_NE(said.find("warning: no chart.min.js in '" + path("empty") + "'"), std::string::npos) << said;
}

TEST_F(DashboardTest, TokenIsNeededOnEveryRouteByHeaderCookieOrQuery) {
  auto& ui = start({"--token", "s3cret"});
  for (const std::string path : {"/", "/api/projects", "/ui/dashboard.js", "/chart.js/chart.min.js", "/run?id=1"}) {
    auto res = ui.client().Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 401) << path;
  }
  auto res = ui.client().Get("/api/projects", {{"Authorization", "Bearer s3cret"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  res = ui.client().Get("/api/projects", {{"Authorization", "Bearer s3cres"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
  res = ui.client().Get("/?token=s3cret");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->get_header_value("Set-Cookie").find("strata_token=s3cret; Path=/; HttpOnly"), std::string::npos);
  res = ui.client().Get("/api/runs", {{"Cookie", "theme=dark; strata_token=s3cret"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  res = ui.client().Get("/api/runs", {{"Cookie", "strata_token=wrong"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 401);
}

TEST_F(DashboardTest, SigtermStopsItWithExitStatusZero) {
  auto& ui = start();
  ASSERT_TRUE(ui.client().Get("/api/projects"));
  ui.signal(SIGTERM);
  EXPECT_EQ(ui.wait(), 0);
}

}  // namespace
}  // namespace strata::testing
