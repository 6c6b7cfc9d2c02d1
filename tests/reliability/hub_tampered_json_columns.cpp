// Rows read from the database are hostile input: a model's metrics, tags or user values, or a
// dataset's user values, that are not the JSON the hub writes (not JSON, another shape, values of
// another type, nested 100,000 deep) used to escape as nlohmann's exceptions with no word of
// which row was bad. Each is now a strata::Error naming the row and the column.
#include <string>
#include <vector>

#include "hub/hub_fixture.hpp"
#include "strata/core/factory.hpp"
#include "strata/hub/shared_connection.hpp"
#include "support/expect_error.hpp"

namespace strata::hub::testing {
namespace {

// Texts that are not what the hub writes in any of these columns, and `wrong_type`, which is
// JSON of the column's shape holding a value of another type.
std::vector<std::string> tampered_texts(const std::string& wrong_type) {
  return {"not json", "[1, 2]", wrong_type, std::string(100000, '[') + std::string(100000, ']')};
}

// The column's text as the hub wrote it, to put back.
std::string column_text(Database& db, const std::string& table, const std::string& column) {
  std::string text;
  db.query("SELECT " + column + " FROM " + table, {}, [&](const Row& row) { text = row.text(0); });
  return text;
}

using strata::testing::expect_error;

TEST_P(HubTest, ModelJsonColumnsFromTheDatabaseAreCheckedAndNamed) {
  Hub hub = open({.cache_bytes = 0});
  hub.save_model("m", small_model(1), {.metrics = {{"accuracy", 0.9}}, .tags = {"best"}});
  SharedConnection connection(hub);  // one statement at a time, between the hub's calls
  for (const auto& [column, wrong_type] : {std::pair<std::string, std::string>{"metrics", R"({"accuracy": "high"})"},
                                           {"tags", R"(["best", 3])"},
                                           {"user_values", R"({"note": 3})"}}) {
    const std::string good = column_text(connection.lock().db(), "models", column);
    for (const std::string& text : tampered_texts(wrong_type)) {
      SCOPED_TRACE(column + " = " + text.substr(0, 30));
      connection.lock().db().execute("UPDATE models SET " + column + " = ?", {text});
      expect_error([&] { hub.list_models("m"); },
                   {"model \"m\" version 1: its " + column + " column does not hold what the hub writes"});
    }
    connection.lock().db().execute("UPDATE models SET " + column + " = ?", {good});
    EXPECT_EQ(hub.list_models("m").size(), 1u);  // the row as the hub wrote it reads again
  }
}

TEST_P(HubTest, DatasetJsonColumnsFromTheDatabaseAreCheckedAndNamed) {
  Hub hub = open({.cache_bytes = 0});
  hub.save_dataset("d", io::NamedTensors{{"x", zeros({2, 2})}}, {.description = "two rows"});
  SharedConnection connection(hub);  // one statement at a time, between the hub's calls
  for (const std::string& text : tampered_texts(R"({"note": 3})")) {
    SCOPED_TRACE(text.substr(0, 30));
    connection.lock().db().execute("UPDATE datasets SET user_values = ?", {text});
    expect_error([&] { hub.find_datasets("d"); },
                 {"dataset \"d\" version 1: its user_values column does not hold what the hub writes"});
  }
}

}  // namespace
}  // namespace strata::hub::testing
