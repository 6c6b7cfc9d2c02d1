// The dashboard's pages in a real browser: headless Chromium (Debian's `chromium`) loads each
// page from a `strata ui` process, runs its script (fetching the JSON routes and Chart.js), and
// the test checks the DOM it built: every name of the fixture's hub, shown as text (the hostile
// name escaped, never an element), and a chart per metric. Screenshots are taken too; with
// STRATA_UI_SCREENSHOTS=DIR they are kept there (how docs/images/dashboard-*.png were made).
// Skipped, saying so, when chromium is not installed.
#include <gtest/gtest.h>

#include <filesystem>

#include "serve/command_output.hpp"
#include "serve/dashboard_fixture.hpp"

namespace strata::testing {
namespace {

class DashboardBrowserTest : public DashboardTest {
 protected:
  void SetUp() override {
    if (command_output("command -v chromium").empty())
      GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs Debian's chromium)";
    DashboardTest::SetUp();
  }
  // Chromium's flags: root needs --no-sandbox; the virtual time budget lets the page's fetches
  // and first refresh finish before the DOM is dumped or the screenshot taken.
  std::string chromium(const std::string& flags, const std::string& page) {
    const std::string url = "http://127.0.0.1:" + std::to_string(ui_->port()) + page;
    return command_output("chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "
                          "--user-data-dir='" + path("chromium") + "' --virtual-time-budget=5000 " + flags + " '" +
                          url + "' 2>/dev/null");
  }
  std::string dom(const std::string& page) { return chromium("--dump-dom", page); }
  // Writes a PNG of the page; returns its path.
  std::string screenshot(const std::string& page, const std::string& name) {
    const char* keep = std::getenv("STRATA_UI_SCREENSHOTS");
    const std::string file = keep != nullptr ? std::string(keep) + "/" + name : path(name);
    chromium("--window-size=1280,900 --screenshot='" + file + "'", page);
    return file;
  }
};

void expect_has(const std::string& dom, const std::vector<std::string>& parts) {
  for (const auto& p : parts) EXPECT_NE(dom.find(p), std::string::npos) << "missing: " << p;
}

TEST_F(DashboardBrowserTest, OverviewShowsEveryKindOfThingWithNamesAsText) {
  start();
  const std::string page = dom("/?project=default");
  expect_has(page, {"data-loaded=\"true\"", ">default</a>", ">team</a>", ">mlp</a>", ">v2<", "accuracy 0.87",
                    ">fashion-cnn</a>", ">still-training</a>", ">running<", ">finished<", ">fashion-mnist-small<",
                    ">a tiny slice<", "cnn-then-rnn", ">train-cnn<", ">train-rnn<", ">cancelled<",
                    ">stopped by the test<", "2 cancelled"});
  // The hostile name is text: escaped in the DOM, no element made from it.
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;&amp;amp;"), std::string::npos);
  EXPECT_EQ(page.find("<img"), std::string::npos);
  const std::string shot = screenshot("/?project=default", "dashboard-overview.png");
  EXPECT_GT(std::filesystem::file_size(shot), 10'000u);
}

TEST_F(DashboardBrowserTest, RunPageDrawsACurvePerMetric) {
  start();
  const std::string page = "/run?id=" + std::to_string(finished_run_);
  const std::string html = dom(page);
  expect_has(html, {"data-loaded=\"true\"", "id=\"run-name\">fashion-cnn<", "data-chart=\"run-accuracy\"",
                    "data-chart=\"run-loss\"", "\"lr\": 0.01", ">train_end<"});
  // Chart.js loaded and drew: it sizes the canvas it owns.
  EXPECT_NE(html.find("style=\"display: block; box-sizing: border-box;"), std::string::npos);
  EXPECT_GT(std::filesystem::file_size(screenshot(page, "dashboard-run.png")), 10'000u);
}

TEST_F(DashboardBrowserTest, ModelPageShowsVersionsAndErrorsAsText) {
  start();
  const std::string html = dom("/model?name=mlp");
  expect_has(html, {"data-loaded=\"true\"", "id=\"model-name\">mlp<", ">v1<", ">v2<", ">0.87<", ">0.52<",
                    "data-chart=\"model-accuracy\""});
  EXPECT_GT(std::filesystem::file_size(screenshot("/model?name=mlp", "dashboard-model.png")), 10'000u);
  const std::string missing = dom("/model?name=%3Cb%3Enope%3C%2Fb%3E");
  expect_has(missing, {"data-loaded=\"error\"", "no model &lt;b&gt;nope&lt;/b&gt; in project default"});
}

}  // namespace
}  // namespace strata::testing
