// A3C with agents as separate processes that share their network through the hub (Mnih et al.
// 2016's asynchronous actor-critic, TensorLayer's "agents as workers"): the program stores the
// initial network as shared parameters in the hub (lifecycle::SharedParameters), submits one
// `a3c_agent` task per worker to the workflow queue and starts --workers processes of itself
// that lease them. Each agent steps its own environment copies with its own copy of the network,
// computes the actor-critic gradients of each rollout, and pushes them every --push-every
// rollouts: a compare-and-swap on the shared row applies them with the shared RMSprop to the
// latest weights (again on newer weights when another agent pushed first), and the agent goes
// on from what it stored. Nothing is lost: the shared version rises by exactly the pushes.
//   strata_a3c_hub --env CartPole-v1 --workers 2 --hub a3c.db    train, check, evaluate, save
//   strata_a3c_hub worker --hub URL                               only run agents (any machine)
//   strata_a3c_hub --play --hub a3c.db                            print an episode of the policy
#include <algorithm>
#include <atomic>
#include <exception>
#include <set>
#include <thread>

#include <strata/lifecycle/shared_parameters.hpp>

#include "../fashion_mnist_plans.hpp"
#include "actor_critic.hpp"

using namespace strata;
using namespace rl_example;
using nlohmann::json;

namespace {

constexpr const char* kAgent = "a3c_hub";
constexpr const char* kKind = "a3c_agent";

// An agent's settings as a task carries them. The parameters come from the database, so each
// is checked (type by the registry, range here) before anything runs.
struct AgentParams {
  std::string shared, env;
  int64_t steps = 0, total_steps = 0, envs = 4, rollout = 5, hidden = 64, push_every = 1;
  uint64_t seed = 1;
  double lr = 7e-4, gamma = 0.99, lambda = 1.0, ent_coef = 0.0, vf_coef = 0.5, max_grad_norm = 0.5;

  json to_json() const {
    return {{"shared", shared},
            {"env", env},
            {"steps", steps},
            {"total_steps", total_steps},
            {"envs", envs},
            {"rollout", rollout},
            {"hidden", hidden},
            {"push_every", push_every},
            {"seed", seed},
            {"lr", lr},
            {"gamma", gamma},
            {"lambda", lambda},
            {"ent_coef", ent_coef},
            {"vf_coef", vf_coef},
            {"max_grad_norm", max_grad_norm}};
  }
};

int64_t integer_in(const json& params, const char* key, int64_t low, int64_t high) {
  const int64_t v = params.at(key).get<int64_t>();
  STRATA_CHECK(v >= low && v <= high, kKind, ": parameter \"", key, "\" must be in [", low, ", ", high, "], got ", v);
  return v;
}

double number_in(const json& params, const char* key, double low, double high, bool low_open = false) {
  const double v = params.at(key).get<double>();
  const bool ok = (low_open ? v > low : v >= low) && v <= high;  // false for NaN
  const auto text = [](double x) {
    char s[32];
    std::snprintf(s, sizeof s, "%g", x);
    return std::string(s);
  };
  STRATA_CHECK(ok, kKind, ": parameter \"", key, "\" must be in ", low_open ? "(" : "[", text(low), ", ", text(high),
               "], got ", text(v));
  return v;
}

AgentParams parse_agent_params(const json& p) {
  AgentParams a;
  a.shared = p.at("shared").get<std::string>();
  STRATA_CHECK(!a.shared.empty() && a.shared.size() <= 200, kKind,
               ": parameter \"shared\" must be a name of 1 to 200 characters");
  a.env = p.at("env").get<std::string>();
  const std::vector<std::string> ids = rl::env_ids();
  STRATA_CHECK(std::find(ids.begin(), ids.end(), a.env) != ids.end(), kKind, ": parameter \"env\" is \"",
               a.env.substr(0, 64), "\", not an environment id (strata_a3c_hub --help lists them)");
  a.steps = integer_in(p, "steps", 1, int64_t{1} << 40);
  a.total_steps = integer_in(p, "total_steps", a.steps, int64_t{1} << 42);
  a.envs = integer_in(p, "envs", 1, 256);
  a.rollout = integer_in(p, "rollout", 1, 1000);
  a.hidden = integer_in(p, "hidden", 1, 4096);
  a.push_every = integer_in(p, "push_every", 1, 1000);
  a.seed = static_cast<uint64_t>(integer_in(p, "seed", 0, int64_t{1} << 40));
  a.lr = number_in(p, "lr", 0, 1, /*low_open=*/true);
  a.gamma = number_in(p, "gamma", 0, 1);
  a.lambda = number_in(p, "lambda", 0, 1);
  a.ent_coef = number_in(p, "ent_coef", 0, 10);
  a.vf_coef = number_in(p, "vf_coef", 0, 10);
  a.max_grad_norm = number_in(p, "max_grad_norm", 0, 1e6, /*low_open=*/true);
  return a;
}

// The shared RMSprop's learning rate falls linearly to 0 over all agents' steps together.
lifecycle::SharedOptimizerFactory shared_rmsprop(const AgentParams& a) {
  return [a](std::vector<Tensor> params, const lifecycle::SharedSnapshot& latest) {
    const auto done = latest.counters.find("env_steps");
    const double progress = done == latest.counters.end() ? 0.0 : done->second / static_cast<double>(a.total_steps);
    return std::make_unique<optim::RMSprop>(
        std::move(params),
        optim::RMSpropOptions{.lr = a.lr * std::max(0.0, 1.0 - progress), .alpha = 0.99, .eps = 1e-5});
  };
}

// One agent: pull, then rollouts and pushes until its steps are done (or its lease is lost).
json run_agent(workflow::TaskContext& ctx) {
  const AgentParams a = parse_agent_params(ctx.params);
  omp_set_num_threads(1);  // the agents are the parallelism, one core each
  const auto t0 = std::chrono::steady_clock::now();
  lifecycle::SharedParameters shared(ctx.hub, a.shared);
  rl::VectorEnv envs(a.env, a.envs);
  STRATA_CHECK(envs.action_space().discrete(), kKind, ": ", a.env,
               " has continuous actions; A3C here needs discrete ones");
  ActorCritic net(envs.action_space().n, a.hidden);
  net(zeros({1, envs.observation_size()}));
  lifecycle::SharedSnapshot latest = shared.pull();
  nn::assign_weights_by_name(net, latest.weights);  // a shape that does not fit --hidden is an error
  const int64_t first_version = latest.version;
  // The network's weights by the names the shared row has (an ActorCritic's are all trainable).
  const std::vector<std::pair<std::string, Tensor>> named = net.named_weights();
  std::vector<Tensor> params;
  for (const auto& [name, w] : named) params.push_back(w);
  const lifecycle::SharedOptimizerFactory rmsprop = shared_rmsprop(a);

  Generator gen(a.seed * 7919 + 17);
  Tensor obs = envs.reset(a.seed);
  std::deque<double> recent;
  int64_t steps = 0, pushes = 0, conflicts = 0, episodes = 0, pending = 0;
  double push_seconds = 0;     // in apply_gradients: reading, updating and storing the shared row
  std::vector<Tensor> summed;  // the gradients of the rollouts not pushed yet
  while (steps < a.steps && !ctx.lease_lost()) {
    const Rollout r =
        collect_rollout(envs, obs, net, a.rollout, a.gamma, a.lambda, gen, [&](const std::vector<double>& ret) {
          for (double x : ret) {
            recent.push_back(x);
            if (recent.size() > 100) recent.pop_front();
            ++episodes;
          }
        });
    for (Tensor p : params) p.zero_grad();
    actor_critic_loss(net, r, a.vf_coef, a.ent_coef).backward();
    optim::clip_grad_norm(params, a.max_grad_norm);
    steps += a.rollout * a.envs;
    ++pending;
    if (summed.empty()) {
      for (const Tensor& p : params) summed.push_back(p.grad().clone());
    } else {
      for (size_t i = 0; i < params.size(); ++i) summed[i] = summed[i] + params[i].grad();
    }
    if (pending < a.push_every && steps < a.steps) continue;
    lifecycle::GradientPush push{.counters = {{"env_steps", static_cast<double>(pending * a.rollout * a.envs)}}};
    for (size_t i = 0; i < params.size(); ++i)
      push.gradients.emplace_back(named[i].first, summed[i] / static_cast<double>(pending));
    const auto push_start = std::chrono::steady_clock::now();
    const lifecycle::PushResult pushed = shared.apply_gradients(push, rmsprop);
    push_seconds += seconds_since(push_start);
    ++pushes;
    conflicts += pushed.conflicts;
    latest = pushed.latest;
    nn::assign_weights_by_name(net, latest.weights);
    summed.clear();
    pending = 0;
    if (latest.counters.count("stop")) break;  // the program saw the target reached
  }
  const double seconds = seconds_since(t0);
  const double mean_recent = recent.empty() ? 0 : std::accumulate(recent.begin(), recent.end(), 0.0) / recent.size();
  ctx.log("agent pid " + std::to_string(::getpid()) + ": " + std::to_string(steps) + " steps, " +
          std::to_string(pushes) + " pushes (" + std::to_string(conflicts) + " conflicts), versions " +
          std::to_string(first_version) + ".." + std::to_string(latest.version));
  return {{"pid", ::getpid()},
          {"env_steps", steps},
          {"pushes", pushes},
          {"conflicts", conflicts},
          {"episodes", episodes},
          {"mean_return_last_100", mean_recent},
          {"first_version", first_version},
          {"last_version", latest.version},
          {"seconds", seconds},
          {"push_seconds", push_seconds},
          {"steps_per_second", steps / seconds}};
}

workflow::TaskRegistry agent_kinds() {
  using workflow::ParamType;
  const AgentParams d;
  workflow::TaskRegistry registry;
  registry.add(
      {.name = kKind,
       .params = {{.name = "shared", .type = ParamType::string, .required = true},
                  {.name = "env", .type = ParamType::string, .required = true},
                  {.name = "steps", .type = ParamType::integer, .required = true},
                  {.name = "total_steps", .type = ParamType::integer, .required = true},
                  {.name = "envs", .type = ParamType::integer, .default_value = d.envs},
                  {.name = "rollout", .type = ParamType::integer, .default_value = d.rollout},
                  {.name = "hidden", .type = ParamType::integer, .default_value = d.hidden},
                  {.name = "push_every", .type = ParamType::integer, .default_value = d.push_every},
                  {.name = "seed", .type = ParamType::integer, .default_value = d.seed},
                  {.name = "lr", .type = ParamType::number, .default_value = d.lr},
                  {.name = "gamma", .type = ParamType::number, .default_value = d.gamma},
                  {.name = "lambda", .type = ParamType::number, .default_value = d.lambda},
                  {.name = "ent_coef", .type = ParamType::number, .default_value = d.ent_coef},
                  {.name = "vf_coef", .type = ParamType::number, .default_value = d.vf_coef},
                  {.name = "max_grad_norm", .type = ParamType::number, .default_value = d.max_grad_norm}},
       .fn = run_agent,
       .help = "an A3C agent: trains on its own environments, pushing gradients to shared parameters in the hub"});
  return registry;
}

struct Flags {
  CommonFlags common{.env = "CartPole-v1", .steps = 100000};
  fashion_mnist_plans::PlanFlags plan{.hub = "a3c_hub.db", .workers = 2};  // --hub, --workers, worker
  ActorCriticFlags ac{.envs = 4};                                          // A2C's settings, 4 copies per agent
  int64_t push_every = 1;
  int64_t eval_every = 5000;
  double min_return = -1e300;
};

Flags parse(int argc, char** argv) {
  Flags f;
  CLI::App app(
      "strata_a3c_hub: A3C with agents as worker processes sharing their network through the hub.\n"
      "  strata_a3c_hub [flags]            submit --workers agent tasks, run them on as many local\n"
      "                                    processes, check the shared version, evaluate and save\n"
      "  strata_a3c_hub worker --hub URL   only run agent tasks (start one per machine on a shared hub)");
  add_common_flags(app, f.common);
  // parse_flags adds --hub (to PlanFlags); the agents run on one thread each.
  for (const char* name : {"--hub", "--threads"}) app.remove_option(app.get_option(name));
  add_actor_critic_flags(app, f.ac, "the shared RMSprop");
  app.add_option("--push-every", f.push_every, "rollouts whose mean gradient one push applies")
      ->check(flag_checks::at_least(1))
      ->capture_default_str();
  app.add_option("--eval-every", f.eval_every,
                 "check the shared policy against --target every N shared steps (0: never)")
      ->check(flag_checks::at_least(0))
      ->capture_default_str();
  app.add_option("--min-return", f.min_return, "exit with status 1 when the final evaluation is below this");
  fashion_mnist_plans::parse_flags(app, f.plan, argc, argv);
  STRATA_CHECK(f.plan.workers <= 256, "strata_a3c_hub: --workers must be in [1, 256], got ", f.plan.workers);
  f.common.hub = f.plan.hub;
  return f;
}

// While the agents train: every --eval-every shared steps the greedy policy of the latest row
// plays 10 episodes; when they reach --target, --eval-episodes decide (the other agents' stopping
// rule, agent_common.hpp). Reaching it stores the counter "stop" with one push, which each agent
// reads back from its next push.
struct TargetWatch {
  std::optional<lifecycle::SharedSnapshot> reached;
  int64_t steps = -1;
  double seconds = -1;
};

TargetWatch watch_for_target(const Flags& f, lifecycle::SharedParameters& shared, ActorCritic& net,
                             const Policy& greedy, const std::atomic<bool>& finished) {
  const auto t0 = std::chrono::steady_clock::now();
  TargetWatch w;
  int64_t next_check = f.eval_every;
  while (!finished) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (f.eval_every == 0 || w.reached) continue;
    const lifecycle::SharedSnapshot row = shared.pull();
    const auto counter = row.counters.find("env_steps");
    const int64_t done = counter == row.counters.end() ? 0 : static_cast<int64_t>(counter->second);
    if (done < next_check) continue;
    next_check = (done / f.eval_every + 1) * f.eval_every;
    nn::assign_weights_by_name(net, row.weights);
    if (evaluate(f.common.env, 10, f.common.seed + 3000000 + done, greedy) < f.common.target) continue;
    const double full = evaluate(f.common.env, f.common.eval_episodes, f.common.seed + 1000000, greedy);
    std::printf("  evaluation over %lld episodes at %lld steps (version %lld): mean return %.2f\n",
                static_cast<long long>(f.common.eval_episodes), static_cast<long long>(done),
                static_cast<long long>(row.version), full);
    if (full < f.common.target) continue;
    w = {row, done, seconds_since(t0)};
    std::printf("target %.1f reached after %lld environment steps, %.1f s\n", f.common.target,
                static_cast<long long>(done), w.seconds);
    std::fflush(stdout);
    shared.push([](lifecycle::SharedSnapshot& latest) { latest.counters["stop"] = 1; });
  }
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  if (f.plan.worker) return fashion_mnist_plans::run_worker(f.common.hub, agent_kinds(), f.plan.exit_when_idle);
  start(f.common);
  const rl::VectorEnv probe = discrete_envs(f.common, 1, kAgent);
  const int64_t d = probe.observation_size();
  ActorCritic net(probe.action_space().n, f.ac.hidden);
  net(zeros({1, d}));
  const Policy greedy = [&](const Tensor& obs) { return argmax(net.actor(obs), 1); };
  if (f.common.play) return replay(f.common, kAgent, net, greedy);

  // A fresh run: the shared row starts at version 0 from this seed's network.
  const std::string name = model_name(f.common, kAgent);
  hub::Hub store = hub::Hub::open(f.common.hub);
  lifecycle::SharedParameters shared(store, name);
  shared.remove();
  shared.create(net.named_weights());
  std::vector<int64_t> ids;
  workflow::Queue queue(store);
  // Agent tasks of an earlier run on this name that never finished would push to the new row.
  for (const workflow::TaskStatus status :
       {workflow::TaskStatus::pending, workflow::TaskStatus::leased, workflow::TaskStatus::running}) {
    for (const workflow::Task& t : queue.list({.status = status, .limit = 1'000'000}))
      if (t.kind == kKind && t.model == name) queue.cancel(t.id, "superseded by a new strata_a3c_hub run");
  }
  for (int w = 0; w < f.plan.workers; ++w) {
    AgentParams a{.shared = name,
                  .env = f.common.env,
                  .steps = f.common.steps / f.plan.workers,
                  .total_steps = f.common.steps,
                  .envs = f.ac.envs,
                  .rollout = f.ac.rollout,
                  .hidden = f.ac.hidden,
                  .push_every = f.push_every,
                  .seed = f.common.seed * 1000 + static_cast<uint64_t>(w),
                  .lr = f.ac.lr,
                  .gamma = f.ac.gamma,
                  .lambda = f.ac.lambda,
                  .ent_coef = f.ac.ent_coef};
    ids.push_back(queue.submit(
        {.kind = kKind, .params = a.to_json().dump(), .name = "a3c agent " + std::to_string(w), .model = name}));
  }
  std::printf(
      "shared parameters %s at version 0 in %s; %d agent task%s submitted, running on as many worker processes\n",
      name.c_str(), f.common.hub.c_str(), f.plan.workers, f.plan.workers == 1 ? "" : "s");
  std::fflush(stdout);  // before the workers write to the same stdout
  std::atomic<bool> finished{false};
  std::exception_ptr failed;
  std::thread workers([&] {
    try {
      fashion_mnist_plans::run_local_workers(f.plan.workers, f.common.hub);
    } catch (...) {
      failed = std::current_exception();
    }
    finished = true;
  });
  const TargetWatch watch = watch_for_target(f, shared, net, greedy, finished);
  workers.join();
  if (failed) std::rethrow_exception(failed);

  // Every push stored exactly one version: the final version is the sum of the agents' pushes
  // (and the stop's).
  int64_t pushes = 0, conflicts = 0, steps = 0;
  double first_start = 1e300, last_finish = 0, agent_seconds = 0, push_seconds = 0;
  std::set<int64_t> pids;
  std::string per_agent;
  for (const int64_t id : ids) {
    const std::optional<workflow::Task> t = queue.get(id);
    STRATA_CHECK(t && t->status == workflow::TaskStatus::succeeded, "agent task ", id,
                 " did not succeed: ", t ? t->error : std::string("missing"));
    const json r = json::parse(*t->result);
    pushes += r.at("pushes").get<int64_t>();
    conflicts += r.at("conflicts").get<int64_t>();
    steps += r.at("env_steps").get<int64_t>();
    agent_seconds += r.at("seconds").get<double>();
    push_seconds += r.at("push_seconds").get<double>();
    pids.insert(r.at("pid").get<int64_t>());
    first_start = std::min(first_start, *t->started_at);
    last_finish = std::max(last_finish, *t->finished_at);
    per_agent += (per_agent.empty() ? "" : " + ") + std::to_string(r.at("pushes").get<int64_t>());
  }
  const lifecycle::SharedSnapshot final_row = shared.pull();
  const int64_t expected = pushes + (watch.reached ? 1 : 0);
  std::printf("shared version %lld = %s pushes of %d agent%s%s in %zu process%s (%lld conflicts retried): %s\n",
              static_cast<long long>(final_row.version), per_agent.c_str(), f.plan.workers,
              f.plan.workers == 1 ? "" : "s", watch.reached ? " + 1 (the stop)" : "", pids.size(),
              pids.size() == 1 ? "" : "es", static_cast<long long>(conflicts),
              final_row.version == expected ? "no update lost" : "UPDATES LOST");
  STRATA_CHECK(final_row.version == expected, "the shared version is ", final_row.version, ", the pushes were ",
               expected);
  const double seconds = last_finish - first_start;
  std::printf("%lld environment steps in %.2f s of agent time: %.0f steps per second with %d worker process%s\n",
              static_cast<long long>(steps), seconds, steps / seconds, f.plan.workers, f.plan.workers == 1 ? "" : "es");
  std::printf("the agents spent %.0f%% of their time pushing (%.3f ms a push, with its retries)\n",
              100 * push_seconds / agent_seconds, 1000 * push_seconds / std::max<int64_t>(pushes, 1));

  // The policy that reached the target (the agents pushed on a little before they stopped), or the last.
  nn::assign_weights_by_name(net, watch.reached ? watch.reached->weights : final_row.weights);
  const double mean_return = evaluate(f.common.env, f.common.eval_episodes, f.common.seed + 2000000, greedy);
  std::printf("final evaluation over %lld episodes: mean return %.2f (version %lld)\n",
              static_cast<long long>(f.common.eval_episodes), mean_return,
              static_cast<long long>(watch.reached ? watch.reached->version : final_row.version));
  hub::ModelMeta meta{
      .architecture = kAgent,
      .metrics = {{"mean_return", mean_return}, {"env_steps_per_second", steps / seconds}, {"train_seconds", seconds}},
      .values = {{"config", "workers=" + std::to_string(f.plan.workers) + " envs=" + std::to_string(f.ac.envs) +
                                " push_every=" + std::to_string(f.push_every) + " lr=" + std::to_string(f.ac.lr)}}};
  if (watch.reached) {
    meta.metrics["steps_to_target"] = static_cast<double>(watch.steps);
    meta.metrics["seconds_to_target"] = watch.seconds;
  }
  const int64_t version = store.save_model(name, net.named_weights(), meta);
  std::printf("saved %s version %lld in %s\n", name.c_str(), static_cast<long long>(version), f.common.hub.c_str());
  if (f.min_return > -1e300) {
    std::printf("mean return %.2f %s --min-return %.2f\n", mean_return,
                mean_return >= f.min_return ? "reaches" : "is below", f.min_return);
  }
  return mean_return >= f.min_return ? 0 : 1;
}
