// IMPALA-style actor/learner (Espeholt et al. 2018) with agents as separate processes: under
// `strata launch -n K`, rank 0 is the learner and ranks 1..K-1 are actors, each stepping its own
// VectorEnv of Pong-v0 (or another discrete task) with the CNN policy (pixel_actor_critic.hpp).
// Every round each actor sends one rollout (all_gather), and while the learner takes a V-trace
// step on them the actors already collect the next rollout with the weights they have; then the
// learner broadcasts its new weights. So each rollout is acted one update behind the policy
// that learns from it, which V-trace corrects.
//   strata launch -n 3 build/strata_impala --steps 400000      train, save to the hub
//   build/strata_impala --play --out pong_frames                PNG frames and an APNG of an episode
#include <filesystem>

#include <strata/data/image_codec.hpp>
#include <strata/dist/dist.hpp>
#include <strata/rl/policy_utils.hpp>
#include <strata/rl/returns.hpp>
#include <strata/viz/apng.hpp>

#include "pixel_actor_critic.hpp"

using namespace strata;
using namespace rl_example;

namespace {

struct ImpalaFlags {
  int64_t envs = 8, rollout = 20, frames = 400, scale = 4;
  double lr = 5e-4, gamma = 0.99, lambda = 1.0, ent_coef = 0.01, vf_coef = 0.5, max_grad_norm = 40, rho_bar = 1,
         c_bar = 1;
  std::string out = "impala_play";
};

// The weights as one flat float32 tensor with a trailing stop flag: what the learner broadcasts.
Tensor pack_weights(nn::Layer& net, bool stop) {
  std::vector<Tensor> parts;
  for (const Tensor& w : net.all_weights()) parts.push_back(w.detach().reshape({-1}));
  parts.push_back(full({1}, stop ? 1.0 : 0.0));
  return concat(parts, 0);
}

// Loads a pack_weights tensor; returns its stop flag.
bool unpack_weights(nn::Layer& net, const Tensor& flat) {
  std::vector<Tensor> weights;
  int64_t at = 0;
  for (const Tensor& w : net.all_weights()) {
    weights.push_back(flat.narrow(0, at, w.numel()).reshape(w.shape()).clone());
    at += w.numel();
  }
  nn::assign_weights(net, weights);
  return flat.narrow(0, at, 1).item<float>() != 0;
}

// One actor's rollout of T steps of N copies as a flat float32 tensor, so that all_gather carries
// it: observations [T + 1, N, D] (the last the bootstrap state), then per step actions, rewards,
// dones and the behaviour policy's log-probabilities [T, N] each, then the returns of the episodes
// that ended ([T N] slots, unused ones 0) and their count.
struct RolloutLayout {
  int64_t T, N, D;
  int64_t obs() const { return (T + 1) * N * D; }
  int64_t per_step() const { return T * N; }
  int64_t size() const { return obs() + 5 * per_step() + 1; }
  Tensor field(const Tensor& flat, int k) const { return flat.narrow(0, obs() + k * per_step(), per_step()).reshape({T, N}); }
};

Tensor collect(rl::VectorEnv& envs, Tensor& obs, PixelActorCritic& net, const RolloutLayout& L, Generator& gen) {
  NoGradGuard no_grad;
  std::vector<Tensor> observations{obs.reshape({-1})}, actions, logps;
  std::vector<float> rewards, dones, finished;
  observations.reserve(L.T + 1);
  for (int64_t t = 0; t < L.T; ++t) {
    const Tensor logits = net.actor(obs);
    const Tensor a = rl::sample_actions(softmax(logits, 1), gen);
    logps.push_back(gather(log_softmax(logits, 1), 1, a.unsqueeze(1)).reshape({-1}));
    const rl::VectorStep s = envs.step(a);
    for (int64_t i = 0; i < L.N; ++i) {
      rewards.push_back(static_cast<float>(s.rewards[i]));
      dones.push_back(s.done(i) ? 1.0f : 0.0f);
    }
    for (double r : s.finished_returns) finished.push_back(static_cast<float>(r));
    actions.push_back(cast(a, kFloat32));
    obs = s.observations;
    observations.push_back(obs.reshape({-1}));
  }
  const float count = static_cast<float>(finished.size());
  finished.resize(L.per_step(), 0.0f);
  finished.push_back(count);
  return concat({concat(observations, 0), concat(actions, 0), from_vector(rewards), from_vector(dones),
                 concat(logps, 0), from_vector(finished)},
                0);
}

// The learner's step on the actors' rollouts [actors, size]: V-trace targets from the current
// network, then the actor-critic loss with them.
void learn(PixelActorCritic& net, optim::Optimizer& opt, const Tensor& gathered, const RolloutLayout& L,
           const ImpalaFlags& f, Progress& progress) {
  std::vector<Tensor> obs, actions, rewards, dones, mu;
  for (int64_t k = 1; k < gathered.size(0); ++k) {  // row 0 is the learner's empty slot
    const Tensor row = gathered.select(0, k);
    obs.push_back(row.narrow(0, 0, L.obs()).reshape({L.T + 1, L.N, L.D}));
    actions.push_back(L.field(row, 0));
    rewards.push_back(L.field(row, 1));
    dones.push_back(L.field(row, 2));
    mu.push_back(L.field(row, 3));
    const std::vector<float> ended = L.field(row, 4).reshape({-1}).to_vector<float>();
    const auto count = static_cast<int64_t>(row.narrow(0, L.size() - 1, 1).item<float>());
    progress.episodes_ended(std::vector<double>(ended.begin(), ended.begin() + std::clamp<int64_t>(count, 0, L.per_step())));
  }
  const Tensor o = concat(obs, 1), a = cast(concat(actions, 1), kInt64), r = concat(rewards, 1), d = concat(dones, 1);
  const int64_t T = L.T, M = o.size(1);
  const Tensor out = net(o.reshape({(T + 1) * M, L.D}));
  const Tensor logits = out.narrow(0, 0, T * M).narrow(1, 0, out.size(1) - 1);
  const Tensor values_all = out.narrow(1, out.size(1) - 1, 1).reshape({T + 1, M});
  const Tensor logp_all = log_softmax(logits, 1);
  const Tensor logp = gather(logp_all, 1, a.reshape({-1, 1})).reshape({T, M});
  const Tensor values = values_all.narrow(0, 0, T);
  const rl::VTraceTargets targets =
      rl::vtrace(logp.detach() - concat(mu, 1), r, values.detach(), values_all.narrow(0, 1, T).detach(), d, d, f.gamma,
                 f.lambda, f.rho_bar, f.c_bar);
  const Tensor policy_loss = -(logp * targets.pg_advantages).mean();
  const Tensor value_loss = mse_loss(values, targets.vs);
  const Tensor entropy = -(exp(logp_all) * logp_all).sum() / static_cast<double>(T * M);
  const Tensor loss = policy_loss + value_loss * f.vf_coef - entropy * f.ent_coef;
  opt.zero_grad();
  loss.backward();
  optim::clip_grad_norm(opt.params(), f.max_grad_norm);
  opt.step();
}

// --play: one episode of the saved policy on a Pong-v0 copy, each frame a PNG in --out and all
// of them (up to --frames) an APNG, out/episode.png.
int play_frames(const CommonFlags& c, const ImpalaFlags& f, PixelActorCritic& net) {
  hub::Hub store = hub::Hub::open(c.hub);
  const hub::LoadedModel m = store.load_model(model_name(c, "impala"));
  nn::assign_weights_by_name(net, m.weights);
  std::printf("%s version %lld from %s\n", m.info.name.c_str(), static_cast<long long>(m.info.version), c.hub.c_str());
  STRATA_CHECK(f.frames >= 1 && f.frames <= 10000, "strata_impala: --frames must be in [1, 10000], got ", f.frames);
  NoGradGuard no_grad;
  rl::Pong pong;
  std::vector<float> obs = pong.reset(c.seed);
  std::filesystem::create_directories(f.out);
  std::vector<Tensor> frames{pong.rgb_frame(f.scale)};
  double total = 0;
  for (bool done = false; !done;) {
    const Tensor a = argmax(net.actor(from_vector(obs, {1, pong.observation_size()})), 1);
    const rl::Step s = pong.step(a.item<int64_t>());
    total += s.reward;
    done = s.done();
    obs = s.observation;
    if (static_cast<int64_t>(frames.size()) < f.frames) frames.push_back(pong.rgb_frame(f.scale));
  }
  char name[32];
  for (size_t i = 0; i < frames.size(); ++i) {
    std::snprintf(name, sizeof name, "frame_%04zu.png", i);
    data::write_image((std::filesystem::path(f.out) / name).string(), frames[i]);
  }
  const std::string apng = (std::filesystem::path(f.out) / "episode.png").string();
  viz::write_apng(apng, frames, {.delay_ms = 40});
  const std::vector<double> st = pong.state();
  std::printf("episode over after %lld steps: score %d:%d (agent:opponent), return %+.0f\n",
              static_cast<long long>(pong.elapsed_steps()), static_cast<int>(st[rl::Pong::kAgentScore]),
              static_cast<int>(st[rl::Pong::kOpponentScore]), total);
  std::printf("wrote %zu PNG frames and the animation %s\n", frames.size(), apng.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CommonFlags c{.env = "Pong-v0", .steps = 400000, .eval_episodes = 20, .target = 3};
  ImpalaFlags f;
  CLI::App app("IMPALA: actor processes and a V-trace learner (strata launch -n K: rank 0 learns, the rest act) "
               "with a CNN policy on Pong-v0; saves the policy to the hub.");
  add_common_flags(app, c);
  app.add_option("--envs", f.envs, "environment copies per actor")->capture_default_str();
  app.add_option("--rollout", f.rollout, "steps of each copy per rollout")->capture_default_str();
  app.add_option("--lr", f.lr, "the learner's Adam learning rate")->capture_default_str();
  app.add_option("--gamma", f.gamma, "discount")->capture_default_str();
  app.add_option("--ent-coef", f.ent_coef, "entropy bonus")->capture_default_str();
  app.add_option("--rho-bar", f.rho_bar, "V-trace's clip of the importance weights rho")->capture_default_str();
  app.add_option("--c-bar", f.c_bar, "V-trace's clip of the trace weights c")->capture_default_str();
  app.get_option("--play")->description("load the saved policy from the hub; write one episode's frames (PNG, APNG)");
  app.add_option("--out", f.out, "--play: folder of the PNG frames and episode.png (APNG)")->capture_default_str();
  app.add_option("--frames", f.frames, "--play: at most this many frames")->capture_default_str();
  app.add_option("--scale", f.scale, "--play: pixels per game pixel")->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  STRATA_CHECK(c.env == "Pong-v0", "strata_impala: the CNN policy reads Pong-v0's frames; got --env ", c.env);
  STRATA_CHECK(f.envs >= 1 && f.envs <= 1024 && f.rollout >= 1 && f.rollout <= 10000,
               "strata_impala: --envs must be in [1, 1024] and --rollout in [1, 10000]");
  start(c);
  PixelActorCritic net(3);
  net(zeros({1, 2 * rl::Pong::kSize * rl::Pong::kSize}));
  if (c.play) return play_frames(c, f, net);

  const dist::World& world = dist::init();
  STRATA_CHECK(world.size >= 2, "strata_impala: start it as a job of 2 or more processes (strata launch -n K): rank 0 "
               "learns, the others act; this job has ", world.size);
  const RolloutLayout L{f.rollout, f.envs, 2 * rl::Pong::kSize * rl::Pong::kSize};
  const int64_t actors = world.size - 1, per_round = actors * L.T * L.N;
  Tensor weights = pack_weights(net, false);
  dist::broadcast(weights);  // rank 0's initial weights everywhere
  unpack_weights(net, weights);

  if (world.rank != 0) {  // an actor: rollouts with the latest weights it has, until told to stop
    Generator gen(c.seed * 1000 + world.rank);
    rl::VectorEnv envs(c.env, L.N);
    Tensor obs = envs.reset(c.seed + 1000 * world.rank);
    Tensor rollout = collect(envs, obs, net, L, gen);
    for (;;) {
      dist::all_gather(rollout);
      rollout = collect(envs, obs, net, L, gen);  // overlaps the learner's step
      dist::broadcast(weights);
      if (unpack_weights(net, weights)) return 0;
    }
  }
  optim::Adam adam(net.trainable_weights(), {.lr = f.lr});
  const Policy greedy = [&](const Tensor& obs) { return argmax(net.actor(obs), 1); };
  Progress progress(c);
  progress.set_eval_gap(200000);  // a Pong evaluation is 10 episodes of up to 2000 steps
  const Tensor empty = zeros({L.size()});
  for (int64_t steps = per_round;; steps += per_round) {
    learn(net, adam, dist::all_gather(empty), L, f, progress);
    const bool stop = steps + per_round > c.steps || progress.report(steps, greedy);
    weights = pack_weights(net, stop);
    dist::broadcast(weights);
    if (stop) break;
  }
  std::printf("%lld actor processes, %lld environment steps in %.1f s: %.0f steps per second\n",
              static_cast<long long>(actors), static_cast<long long>(progress.steps()), progress.seconds(),
              progress.steps() / progress.seconds());
  return finish(c, "impala", net, greedy, progress,
                "actors=" + std::to_string(actors) + " envs=" + std::to_string(f.envs) +
                    " rollout=" + std::to_string(f.rollout) + " lr=" + std::to_string(f.lr));
}
