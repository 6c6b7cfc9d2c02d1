#include "hub_commands.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "existing_hub.hpp"
#include "option_checks.hpp"
#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"
#include "strata/hub/hub.hpp"
#include "strata/hub/stored_json.hpp"
#include "strata/lifecycle/hub_models.hpp"
#include "strata/lifecycle/tensorboard_export.hpp"
#include "strata/onnx/onnx.hpp"
#include "table.hpp"

namespace strata::cli {

using nlohmann::json;

namespace {

struct HubArgs {
  std::string url = "strata.db";
  std::string project = "default";
  bool as_json = false;
};

// --- formatting ---

std::string format_time(double seconds) {
  if (seconds <= 0) return "";
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string format_number(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

std::string format_bytes(int64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  std::ostringstream s;
  s.precision(u == 0 ? 0 : 1);
  s << std::fixed << v << ' ' << units[u];
  return s.str();
}

std::string join(const std::vector<std::string>& parts, const char* sep = ", ") {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

void print_json(const json& j) { std::cout << j.dump(2) << '\n'; }

// --- model references ---

using ModelRef = hub::VersionRef;
ModelRef parse_ref(const std::string& text) { return hub::parse_version_ref(text); }

std::string ref_str(const ModelRef& r) {
  return r.version == hub::kLatest ? r.name : r.name + ":" + std::to_string(r.version);
}

// Only `import` may create a hub.
hub::Hub open_hub(const HubArgs& args, bool create = false) {
  if (!create) require_existing_hub(args.url);
  auto h = hub::Hub::open(args.url);
  h.set_project(args.project);
  return h;
}

hub::ModelInfo require_model(hub::Hub& h, const ModelRef& ref) {
  auto info = h.model_info(ref.name, ref.version);
  STRATA_CHECK(info.has_value(), "no model '", ref_str(ref), "' in project '", h.project(), "' of hub ", h.url());
  return *info;
}

json meta_json(const hub::ModelInfo& info) {
  json j{{"name", info.name},
         {"version", info.version},
         {"architecture", info.meta.architecture},
         {"metrics", info.meta.metrics},
         {"tags", info.meta.tags},
         {"values", info.meta.values},
         {"sha256", info.sha256},
         {"size_bytes", info.size_bytes},
         {"created_at", info.created_at}};
  j["run_id"] = info.meta.run_id ? json(*info.meta.run_id) : json(nullptr);
  j["dataset_id"] = info.meta.dataset_id ? json(*info.meta.dataset_id) : json(nullptr);
  return j;
}

// Every version in the project, newest first, page by page.
std::vector<hub::ModelInfo> all_versions(hub::Hub& h) {
  std::vector<hub::ModelInfo> out;
  const int64_t limit = 1000;
  for (int64_t offset = 0;; offset += limit) {
    auto page = h.list_models("", {limit, offset});
    out.insert(out.end(), page.begin(), page.end());
    if (static_cast<int64_t>(page.size()) < limit) return out;
  }
}

// --- commands ---

void models(const HubArgs& args, const std::string& metric, bool lower_is_better) {
  auto h = open_hub(args);
  struct Summary {
    const hub::ModelInfo* latest = nullptr;
    int64_t count = 0;
    std::optional<std::pair<double, int64_t>> best;  // value, version
  };
  auto versions = all_versions(h);
  std::vector<std::string> order;  // newest model first
  std::map<std::string, Summary> by_name;
  for (const auto& v : versions) {
    auto& s = by_name[v.name];
    if (!s.latest) s.latest = &v, order.push_back(v.name);
    ++s.count;
    auto it = v.meta.metrics.find(metric);
    if (it == v.meta.metrics.end()) continue;
    bool better = !s.best || (lower_is_better ? it->second < s.best->first : it->second > s.best->first);
    if (better) s.best = {{it->second, v.version}};  // newest first: ties keep the newest
  }
  if (args.as_json) {
    json out = json::array();
    for (const auto& name : order) {
      const auto& s = by_name[name];
      json j{{"name", name}, {"latest_version", s.latest->version}, {"versions", s.count},
             {"updated_at", s.latest->created_at}, {"metric", metric}};
      j["best"] = s.best ? json{{"value", s.best->first}, {"version", s.best->second}} : json(nullptr);
      out.push_back(j);
    }
    print_json(out);
    return;
  }
  Table t({"NAME", "LATEST", "VERSIONS", "BEST " + metric, "BEST VERSION", "UPDATED (UTC)"});
  for (const auto& name : order) {
    const auto& s = by_name[name];
    t.add_row({name, std::to_string(s.latest->version), std::to_string(s.count),
               s.best ? format_number(s.best->first) : "", s.best ? std::to_string(s.best->second) : "",
               format_time(s.latest->created_at)});
  }
  if (t.empty()) {
    std::cout << "no models in project '" << h.project() << "' of " << h.url() << '\n';
    return;
  }
  t.print(std::cout);
}

void show(const HubArgs& args, const std::string& ref_text) {
  auto h = open_hub(args);
  auto ref = parse_ref(ref_text);
  require_model(h, ref);
  auto model = h.load_model(ref.name, ref.version);
  const auto& info = model.info;
  if (args.as_json) {
    json j = meta_json(info);
    json tensors = json::array();
    for (const auto& [name, t] : model.weights)
      tensors.push_back({{"name", name}, {"dtype", dtype_name(t.dtype())}, {"shape", t.shape().vec()}});
    j["tensors"] = tensors;
    print_json(j);
    return;
  }
  Table meta({"FIELD", "VALUE"});
  meta.add_row({"name", info.name});
  meta.add_row({"version", std::to_string(info.version)});
  meta.add_row({"created (UTC)", format_time(info.created_at)});
  meta.add_row({"size", format_bytes(info.size_bytes)});
  meta.add_row({"sha256", info.sha256});
  meta.add_row({"tags", join(info.meta.tags)});
  meta.add_row({"run", info.meta.run_id ? std::to_string(*info.meta.run_id) : ""});
  meta.add_row({"dataset id", info.meta.dataset_id ? std::to_string(*info.meta.dataset_id) : ""});
  meta.add_row({"architecture", info.meta.architecture});
  for (const auto& [k, v] : info.meta.values) meta.add_row({"value " + k, v});
  meta.print(std::cout);
  if (!info.meta.metrics.empty()) {
    std::cout << '\n';
    Table metrics({"METRIC", "VALUE"});
    for (const auto& [k, v] : info.meta.metrics) metrics.add_row({k, format_number(v)});
    metrics.print(std::cout);
  }
  std::cout << '\n';
  Table tensors({"TENSOR", "DTYPE", "SHAPE", "ELEMENTS"});
  int64_t total = 0;
  for (const auto& [name, t] : model.weights) {
    tensors.add_row({name, dtype_name(t.dtype()), t.shape().str(), std::to_string(t.numel())});
    total += t.numel();
  }
  tensors.print(std::cout);
  std::cout << model.weights.size() << " tensors, " << total << " elements\n";
}

void runs(const HubArgs& args, int64_t limit) {
  auto h = open_hub(args);
  auto list = h.list_runs({limit, 0});
  if (args.as_json) {
    json out = json::array();
    for (const auto& r : list) {
      out.push_back({{"id", r.id}, {"name", r.name}, {"status", r.status},
                     {"config", hub::stored_json(r.config)},
                     {"created_at", r.created_at}, {"finished_at", r.finished_at}});
    }
    print_json(out);
    return;
  }
  if (list.empty()) {
    std::cout << "no runs in project '" << h.project() << "' of " << h.url() << '\n';
    return;
  }
  Table t({"ID", "NAME", "STATUS", "STARTED (UTC)", "DURATION (s)", "CONFIG"});
  for (const auto& r : list) {
    std::string duration = r.finished_at > 0 ? format_number(std::round((r.finished_at - r.created_at) * 10) / 10) : "";
    t.add_row({std::to_string(r.id), r.name, r.status, format_time(r.created_at), duration, r.config});
  }
  t.print(std::cout);
}

void datasets(const HubArgs& args, const std::string& name_part, int64_t limit) {
  auto h = open_hub(args);
  auto list = h.find_datasets(name_part, {limit, 0});
  const auto kind = [](hub::DatasetKind k) { return k == hub::DatasetKind::files ? "files" : "tensors"; };
  if (args.as_json) {
    json out = json::array();
    for (const auto& d : list)
      out.push_back({{"id", d.id}, {"name", d.name}, {"version", d.version}, {"kind", kind(d.kind)},
                     {"entries", d.entries}, {"description", d.meta.description}, {"values", d.meta.values},
                     {"sha256", d.sha256}, {"size_bytes", d.size_bytes}, {"created_at", d.created_at}});
    print_json(out);
    return;
  }
  if (list.empty()) {
    std::cout << "no datasets" << (name_part.empty() ? "" : " matching '" + name_part + "'") << " in project '"
              << h.project() << "' of " << h.url() << '\n';
    return;
  }
  Table t({"NAME", "VERSION", "ID", "KIND", "ENTRIES", "SIZE", "CREATED (UTC)", "DESCRIPTION"});
  for (const auto& d : list)
    t.add_row({d.name, std::to_string(d.version), std::to_string(d.id), kind(d.kind), std::to_string(d.entries),
               format_bytes(d.size_bytes), format_time(d.created_at), d.meta.description});
  t.print(std::cout);
}

void logs(const HubArgs& args, int64_t run_id, const std::vector<std::string>& metrics,
          const std::vector<std::string>& split_names) {
  auto h = open_hub(args);
  auto run = h.run_info(run_id);
  STRATA_CHECK(run.has_value(), "no run ", run_id, " in hub ", h.url());
  std::vector<hub::Split> splits;
  for (const auto& s : split_names) splits.push_back(hub::parse_split(s));
  json out = json::array();
  Table t({"METRIC", "SPLIT", "STEP", "VALUE", "TIME (UTC)"});
  for (const auto& metric : metrics)
    for (auto split : splits) {
      auto points = h.metric_history(run_id, metric, split);
      if (points.empty()) continue;
      json series = json::array();
      for (const auto& p : points) {
        series.push_back({{"step", p.step}, {"value", p.value}, {"time", p.time}});
        t.add_row({metric, hub::split_name(split), std::to_string(p.step), format_number(p.value), format_time(p.time)});
      }
      out.push_back({{"metric", metric}, {"split", hub::split_name(split)}, {"points", series}});
    }
  if (args.as_json) {
    print_json({{"run", run_id}, {"name", run->name}, {"status", run->status}, {"series", out}});
    return;
  }
  std::cout << "run " << run_id << " '" << run->name << "' (" << run->status << ")\n";
  if (t.empty()) {
    std::cout << "no points for metrics " << join(metrics) << '\n';
    return;
  }
  t.print(std::cout);
}

// The export carries the model's record in safetensors' "__metadata__" (strings only), so an
// import elsewhere restores it.
// --onnx: the version rebuilt as a static model and written as an ONNX graph (docs/interop.md).
void export_onnx(const HubArgs& args, const hub::LoadedModel& model, const std::string& path) {
  auto net = lifecycle::static_model(model);
  net->eval();
  onnx::save_onnx(*net, path);
  if (args.as_json)
    print_json({{"name", model.info.name}, {"version", model.info.version}, {"file", path}, {"format", "onnx"},
                {"opset", onnx::kOpset}});
  else
    std::cout << "exported " << model.info.name << ":" << model.info.version << " as ONNX (opset " << onnx::kOpset
              << ") to " << path << '\n';
}

void export_model(const HubArgs& args, const std::string& ref_text, const std::string& path, bool as_onnx) {
  auto h = open_hub(args);
  auto ref = parse_ref(ref_text);
  require_model(h, ref);
  auto model = h.load_model(ref.name, ref.version);
  if (as_onnx) return export_onnx(args, model, path);
  const auto& meta = model.info.meta;
  io::Metadata md{{"format", "pt"},  // what Hugging Face's loaders look for
                  {"strata.name", model.info.name},
                  {"strata.version", std::to_string(model.info.version)},
                  {"strata.architecture", meta.architecture},
                  {"strata.metrics", json(meta.metrics).dump()},
                  {"strata.tags", json(meta.tags).dump()},
                  {"strata.values", json(meta.values).dump()},
                  {"strata.sha256", model.info.sha256}};
  io::save_safetensors(path, model.weights, md);
  if (args.as_json)
    print_json({{"name", model.info.name}, {"version", model.info.version}, {"file", path},
                {"tensors", model.weights.size()}});
  else
    std::cout << "exported " << model.info.name << ":" << model.info.version << " (" << model.weights.size()
              << " tensors) to " << path << '\n';
}

void import_model(const HubArgs& args, const std::string& path, const std::string& name) {
  // Checked here because load_safetensors never returns on an empty file (its read loop asks
  // for 0 bytes forever).
  std::error_code ec;
  STRATA_CHECK(std::filesystem::is_regular_file(path, ec), "expected a safetensors file, '", path, "' is not a file");
  auto size = std::filesystem::file_size(path, ec);
  STRATA_CHECK(!ec && size >= 8, "'", path, "' is too short for a safetensors file (", size, " bytes)");
  auto file = io::load_safetensors(path);
  STRATA_CHECK(!file.tensors.empty(), "expected tensors in '", path, "', found none");
  hub::ModelMeta meta;
  auto get = [&](const std::string& key) -> std::string {
    auto it = file.metadata.find(key);
    return it == file.metadata.end() ? "" : it->second;
  };
  auto parse = [&](const std::string& key) {
    std::string text = get(key);
    if (text.empty()) return json();
    check_json_depth(text, "metadata '" + key + "' of '" + path + "'");
    json j = json::parse(text, nullptr, false);
    STRATA_CHECK(!j.is_discarded(), "metadata '", key, "' of '", path, "' is not valid JSON: ", text);
    return j;
  };
  try {
    meta.architecture = get("strata.architecture");
    if (auto j = parse("strata.metrics"); !j.is_null()) meta.metrics = j.get<std::map<std::string, double>>();
    if (auto j = parse("strata.tags"); !j.is_null()) meta.tags = j.get<std::vector<std::string>>();
    if (auto j = parse("strata.values"); !j.is_null()) meta.values = j.get<std::map<std::string, std::string>>();
  } catch (const json::exception& e) {
    throw Error("metadata of '" + path + "' has the wrong types: " + e.what());
  }
  auto h = open_hub(args, /*create=*/true);
  int64_t version = h.save_model(name, file.tensors, meta);
  if (args.as_json)
    print_json({{"name", name}, {"version", version}, {"file", path}, {"tensors", file.tensors.size()}});
  else
    std::cout << "imported " << path << " as " << name << ":" << version << " (" << file.tensors.size()
              << " tensors)\n";
}

}  // namespace

std::string hide_password(const std::string& text, const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return text;
  auto at = url.find('@', scheme + 3);
  if (at == std::string::npos) return text;
  auto colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at || colon + 1 == at) return text;
  std::string password = url.substr(colon + 1, at - colon - 1);
  std::string out = text;
  for (size_t pos = 0; (pos = out.find(password, pos)) != std::string::npos; pos += 3) out.replace(pos, password.size(), "***");
  return out;
}

void export_tensorboard(const HubArgs& args, int64_t run_id, std::string out) {
  auto h = open_hub(args);
  if (out.empty()) out = "tensorboard/run-" + std::to_string(run_id);
  const auto written = lifecycle::export_tensorboard(h, run_id, out);
  if (args.as_json) {
    print_json({{"run", run_id}, {"out", out}, {"series", written.series}, {"points", written.points}});
    return;
  }
  std::cout << "run " << run_id << ": " << written.points << " points of " << written.series << " series written to "
            << out << "\nsee them with: tensorboard --logdir " << out << '\n';
}

void add_hub_commands(CLI::App& app) {
  auto args = std::make_shared<HubArgs>();
  auto* hub = app.add_subcommand("hub", "Models, datasets, runs and metric logs of a hub");
  hub->require_subcommand(1);
  hub->fallthrough();  // `strata hub models --json` as well as `strata hub --json models`
  hub->add_option("--hub", args->url, "Hub URL: a SQLite path or postgresql://...")->capture_default_str();
  hub->add_option("--project", args->project, "Project of the hub")->capture_default_str();
  hub->add_flag("--json", args->as_json, "Print JSON instead of tables");

  auto metric = std::make_shared<std::string>("accuracy");
  auto lower = std::make_shared<bool>(false);
  auto* cmd = hub->add_subcommand("models", "Models: latest version, count and best metric");
  cmd->add_option("--metric", *metric, "Metric ranked in the BEST column")->capture_default_str();
  cmd->add_flag("--lower-is-better", *lower, "The best value of --metric is the lowest (a loss)");
  cmd->callback([=] { models(*args, *metric, *lower); });

  auto ref = std::make_shared<std::string>();
  cmd = hub->add_subcommand("show", "A model version: metadata, metrics, tags, tensors");
  cmd->add_option("model", *ref, "NAME or NAME:VERSION")->required();
  cmd->callback([=] { show(*args, *ref); });

  auto limit = std::make_shared<int64_t>(100);
  cmd = hub->add_subcommand("runs", "Training runs, newest first");
  cmd->add_option("--limit", *limit, "How many runs")->capture_default_str()->check(at_least(1));
  cmd->callback([=] { runs(*args, *limit); });

  auto name_part = std::make_shared<std::string>();
  auto dataset_limit = std::make_shared<int64_t>(100);
  cmd = hub->add_subcommand("datasets", "Dataset versions, newest first");
  cmd->add_option("--name", *name_part, "Only names containing this text");
  cmd->add_option("--limit", *dataset_limit, "How many versions")->capture_default_str()->check(at_least(1));
  cmd->callback([=] { datasets(*args, *name_part, *dataset_limit); });

  auto run_id = std::make_shared<int64_t>(0);
  auto log_metrics = std::make_shared<std::vector<std::string>>(std::vector<std::string>{"loss", "accuracy"});
  auto splits = std::make_shared<std::vector<std::string>>(std::vector<std::string>{"train", "validation", "test"});
  cmd = hub->add_subcommand("logs", "Metric history of a run");
  cmd->add_option("run", *run_id, "Run id")->required();
  cmd->add_option("--metric", *log_metrics, "Metric names (repeat or list)")->capture_default_str();
  cmd->add_option("--split", *splits, "Splits: train, validation, test")->capture_default_str();
  cmd->callback([=] { logs(*args, *run_id, *log_metrics, *splits); });

  auto tb_out = std::make_shared<std::string>();
  cmd = hub->add_subcommand("export-tensorboard", "Write a run's metrics as TensorBoard event files");
  cmd->add_option("run", *run_id, "Run id")->required();
  cmd->add_option("--out", *tb_out, "Log directory (default: tensorboard/run-RUN)");
  cmd->callback([=] { export_tensorboard(*args, *run_id, *tb_out); });

  auto file = std::make_shared<std::string>();
  auto as_onnx = std::make_shared<bool>(false);
  cmd = hub->add_subcommand("export", "Write a model version to a safetensors file, with its metadata, or to ONNX");
  cmd->add_option("model", *ref, "NAME or NAME:VERSION")->required();
  cmd->add_option("file", *file, "Output .safetensors (or, with --onnx, .onnx) file")->required();
  cmd->add_flag("--onnx", *as_onnx, "Write an ONNX graph (opset 17) of a static model instead");
  cmd->callback([=] { export_model(*args, *ref, *file, *as_onnx); });

  auto name = std::make_shared<std::string>();
  cmd = hub->add_subcommand("import", "Save a safetensors file as a new version of a model");
  cmd->add_option("file", *file, "Input .safetensors file")->required();
  cmd->add_option("name", *name, "Model name")->required();
  cmd->callback([=] { import_model(*args, *file, *name); });
}

}  // namespace strata::cli
