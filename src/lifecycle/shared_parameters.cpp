// SharedParameters: the versioned row of weights, optimizer state and counters, stored as one
// safetensors blob ("weights/<name>", "optimizer/<key>", counters in its metadata).
#include "strata/lifecycle/shared_parameters.hpp"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>

#include "strata/core/error.hpp"
#include "strata/hub/sql.hpp"

namespace strata::lifecycle {

namespace {

constexpr const char* kWeightsPrefix = "weights/";
constexpr const char* kOptimizerPrefix = "optimizer/";
constexpr const char* kCounterPrefix = "counter/";

// The advisory lock PostgreSQL's pushes of one name take (SQLite's write transaction already
// excludes other writers); also taken while the table is made.
int64_t shared_row_lock_key(const std::string& name) {
  return static_cast<int64_t>(std::hash<std::string>{}("strata.shared_parameters/" + name) >> 1);
}

void ensure_shared_table(hub::Database& db) {
  const bool postgres = db.dialect() == hub::Dialect::postgres;
  db.transaction(true, [&] {
    db.lock_for_transaction(shared_row_lock_key(""));
    db.execute(std::string("CREATE TABLE IF NOT EXISTS shared_parameters (project_id BIGINT NOT NULL, "
                           "name TEXT NOT NULL, version BIGINT NOT NULL, data ") +
               (postgres ? "BYTEA" : "BLOB") + " NOT NULL, updated_at " + (postgres ? "DOUBLE PRECISION" : "REAL") +
               " NOT NULL, PRIMARY KEY (project_id, name))");
  });
}

std::string encode_shared_row(const SharedSnapshot& s) {
  io::NamedTensors tensors;
  for (const auto& [name, t] : s.weights) tensors.emplace_back(kWeightsPrefix + name, t);
  for (const auto& [key, t] : s.optimizer_state) tensors.emplace_back(kOptimizerPrefix + key, t);
  io::Metadata metadata;
  for (const auto& [name, value] : s.counters) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", value);
    metadata[kCounterPrefix + name] = text;
  }
  return io::to_safetensors(tensors, metadata);
}

SharedSnapshot decode_shared_row(const std::string& name, int64_t version, std::string_view data, double updated_at) {
  io::Safetensors file = io::from_safetensors(data);
  SharedSnapshot s{.version = version, .updated_at = updated_at};
  for (auto& [key, t] : file.tensors) {
    if (key.rfind(kWeightsPrefix, 0) == 0) {
      s.weights.emplace_back(key.substr(std::string_view(kWeightsPrefix).size()), std::move(t));
    } else if (key.rfind(kOptimizerPrefix, 0) == 0) {
      s.optimizer_state.emplace_back(key.substr(std::string_view(kOptimizerPrefix).size()), std::move(t));
    } else {
      throw Error("shared parameters '" + name + "': stored entry '" + key + "' is neither weights/ nor optimizer/");
    }
  }
  for (const auto& [key, text] : file.metadata) {
    STRATA_CHECK(key.rfind(kCounterPrefix, 0) == 0, "shared parameters '", name, "': stored metadata '", key,
                 "' is not a counter");
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    STRATA_CHECK(!text.empty() && *end == '\0', "shared parameters '", name, "': counter '", key, "' holds '", text,
                 "', not a number");
    s.counters[key.substr(std::string_view(kCounterPrefix).size())] = value;
  }
  return s;
}

// The same weight names, in the same order, with the same shapes and dtypes.
void check_same_weights(const std::string& name, const io::NamedTensors& before, const io::NamedTensors& after) {
  STRATA_CHECK(before.size() == after.size(), "shared parameters '", name, "': an update must keep the ", before.size(),
               " weights, got ", after.size());
  for (size_t i = 0; i < before.size(); ++i) {
    STRATA_CHECK(before[i].first == after[i].first, "shared parameters '", name, "': an update renamed weight '",
                 before[i].first, "' to '", after[i].first, "'");
    STRATA_CHECK(
        before[i].second.shape() == after[i].second.shape() && before[i].second.dtype() == after[i].second.dtype(),
        "shared parameters '", name, "': an update changed the shape or dtype of weight '", before[i].first, "'");
  }
}

// read(db, project) -> optional<T> in a read transaction on the hub's connection; nothing when the
// hub's project has no row yet.
template <class T, class Read>
std::optional<T> read_shared_row(const hub::SharedConnection& connection, const Read& read) {
  auto session = connection.lock();
  hub::Database& db = session.db();
  std::optional<T> out;
  db.transaction(false, [&] {
    out.reset();
    if (const auto project = session.project_id(false)) out = read(db, *project);
  });
  return out;
}

}  // namespace

SharedParameters::SharedParameters(hub::Hub& hub, std::string name) : connection_(hub), name_(std::move(name)) {
  STRATA_CHECK(!name_.empty(), "shared parameters: the name is empty");
  auto session = connection_.lock();
  ensure_shared_table(session.db());
}

SharedSnapshot SharedParameters::create(const io::NamedTensors& weights) {
  STRATA_CHECK(!weights.empty(), "shared parameters '", name_, "': create() was given no weights");
  std::set<std::string> seen;
  for (const auto& [weight, t] : weights) {
    STRATA_CHECK(t.defined(), "shared parameters '", name_, "': weight '", weight, "' is undefined");
    STRATA_CHECK(seen.insert(weight).second, "shared parameters '", name_, "': weight '", weight, "' appears twice");
  }
  SharedSnapshot fresh{.version = 0, .weights = weights, .updated_at = hub::unix_now()};
  const std::string data = encode_shared_row(fresh);
  {
    auto session = connection_.lock();
    hub::Database& db = session.db();
    db.transaction(true, [&] {
      db.lock_for_transaction(shared_row_lock_key(name_));
      const int64_t project = *session.project_id(true);
      const auto existing =
          db.query_int("SELECT version FROM shared_parameters WHERE project_id = ? AND name = ?", {project, name_});
      if (!existing) {
        db.execute("INSERT INTO shared_parameters (project_id, name, version, data, updated_at) VALUES (?, ?, 0, ?, ?)",
                   {project, name_, hub::Bytes{data}, fresh.updated_at});
      }
    });
  }  // the connection is free again for pull()
  return pull();
}

std::optional<SharedSnapshot> SharedParameters::try_pull() const {
  return read_shared_row<SharedSnapshot>(connection_, [&](hub::Database& db, int64_t project) {
    std::optional<SharedSnapshot> out;
    db.query("SELECT version, data, updated_at FROM shared_parameters WHERE project_id = ? AND name = ?",
             {project, name_},
             [&](const hub::Row& row) { out = decode_shared_row(name_, row.integer(0), row.bytes(1), row.real(2)); });
    return out;
  });
}

SharedSnapshot SharedParameters::pull() const {
  auto s = try_pull();
  STRATA_CHECK(s.has_value(), "shared parameters '", name_, "' do not exist in this hub's project (create() them)");
  return std::move(*s);
}

std::optional<int64_t> SharedParameters::version() const {
  return read_shared_row<int64_t>(connection_, [&](hub::Database& db, int64_t project) {
    return db.query_int("SELECT version FROM shared_parameters WHERE project_id = ? AND name = ?", {project, name_});
  });
}

PushResult SharedParameters::push(const std::function<void(SharedSnapshot&)>& update, int64_t max_tries) {
  STRATA_CHECK(max_tries >= 1, "shared parameters '", name_, "': max_tries must be at least 1, got ", max_tries);
  PushResult result;
  for (int64_t attempt = 0; attempt < max_tries; ++attempt) {
    const SharedSnapshot latest = pull();
    SharedSnapshot next = latest;
    update(next);
    check_same_weights(name_, latest.weights, next.weights);
    next.version = latest.version + 1;
    next.updated_at = hub::unix_now();
    const std::string data = encode_shared_row(next);
    // Compare and swap: the version check and the write in one write transaction, which no
    // other writer shares (SQLite's BEGIN IMMEDIATE; PostgreSQL's advisory lock of the name).
    bool stored = false;
    auto session = connection_.lock();
    hub::Database& db = session.db();
    db.transaction(true, [&] {
      stored = false;
      db.lock_for_transaction(shared_row_lock_key(name_));
      const int64_t project = *session.project_id(true);
      const auto now =
          db.query_int("SELECT version FROM shared_parameters WHERE project_id = ? AND name = ?", {project, name_});
      STRATA_CHECK(now.has_value(), "shared parameters '", name_, "' were removed during a push");
      if (*now != latest.version) return;
      db.execute("UPDATE shared_parameters SET version = ?, data = ?, updated_at = ? WHERE project_id = ? AND name = ?",
                 {next.version, hub::Bytes{data}, next.updated_at, project, name_});
      stored = true;
    });
    if (stored) {
      result.version = next.version;
      result.latest = std::move(next);
      return result;
    }
    ++result.conflicts;
  }
  throw Error("shared parameters '" + name_ + "': " + std::to_string(max_tries) +
              " pushes in a row lost to other pushes; none was stored");
}

PushResult SharedParameters::apply_gradients(const GradientPush& push_in, const SharedOptimizerFactory& make_optimizer,
                                             int64_t max_tries) {
  STRATA_CHECK(static_cast<bool>(make_optimizer), "shared parameters '", name_, "': no optimizer factory");
  return push(
      [&](SharedSnapshot& s) {
        for (const auto& [counter, value] : push_in.counters) s.counters[counter] += value;
        // Every weight is a parameter of the optimizer, so that its state's indices stay those
        // of the stored weights; a weight with no gradient is skipped by step().
        std::vector<Tensor> params;
        params.reserve(s.weights.size());
        for (auto& [weight, t] : s.weights) {
          t = t.clone();
          t.requires_grad_(true);
          params.push_back(t);
        }
        for (const auto& [weight, g] : push_in.gradients) {
          size_t i = 0;
          while (i < s.weights.size() && s.weights[i].first != weight) ++i;
          STRATA_CHECK(i < s.weights.size(), "shared parameters '", name_, "': a gradient for '", weight,
                       "', which is not one of the shared weights");
          STRATA_CHECK(g.shape() == params[i].shape(), "shared parameters '", name_, "': the gradient of '", weight,
                       "' has shape ", g.shape().str(), ", the weight ", params[i].shape().str());
          params[i].set_grad(g);
        }
        std::unique_ptr<optim::Optimizer> opt = make_optimizer(params, s);
        STRATA_CHECK(opt != nullptr, "shared parameters '", name_, "': the optimizer factory returned nothing");
        if (!s.optimizer_state.empty()) {
          const double lr = opt->learning_rate();  // the factory's (scheduled) rate, not the stored one
          opt->load_state(s.optimizer_state);
          opt->set_learning_rate(lr);
        }
        opt->step();
        for (auto& [weight, t] : s.weights) t = t.detach();
        s.optimizer_state = opt->named_state();
      },
      max_tries);
}

void SharedParameters::remove() {
  auto session = connection_.lock();
  hub::Database& db = session.db();
  db.transaction(true, [&] {
    db.lock_for_transaction(shared_row_lock_key(name_));
    const auto project = session.project_id(false);
    if (project) db.execute("DELETE FROM shared_parameters WHERE project_id = ? AND name = ?", {*project, name_});
  });
}

}  // namespace strata::lifecycle
