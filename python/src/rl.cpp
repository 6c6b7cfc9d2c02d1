// strata.rl from Python: Gymnasium's classic-control environments in C++ (reset/step as
// Gymnasium's API returns them, observations as NumPy arrays), the replay buffer, returns and GAE.
#include "bindings.hpp"
#include "strata/core/factory.hpp"
#include "strata/rl/env.hpp"
#include "strata/rl/make_env.hpp"
#include "strata/rl/replay_buffer.hpp"
#include "strata/rl/returns.hpp"

namespace strata::python {
namespace {

py::array_t<float> observation(const std::vector<float>& v) {
  py::array_t<float> out(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), out.mutable_data());
  return out;
}

std::vector<float> floats(py::handle value) {
  py::array_t<float, py::array::c_style | py::array::forcecast> a = py::array_t<float>::ensure(value);
  if (!a) throw py::type_error("expected an array of numbers");
  return std::vector<float>(a.data(), a.data() + a.size());
}

// A replay buffer with its own generator, so that sampling is reproducible from a seed.
struct PyReplayBuffer {
  rl::ReplayBuffer buffer;
  Generator generator;
};

}  // namespace

void bind_rl(py::module_& parent) {
  py::module_ m = parent.def_submodule("rl", "Environments, replay buffers, returns");

  py::class_<rl::Env, std::shared_ptr<rl::Env>>(m, "Env", "make('CartPole-v1'); reset and step as Gymnasium's.")
      .def_property_readonly("id", &rl::Env::name)
      .def_property_readonly("observation_size", &rl::Env::observation_size)
      .def_property_readonly("discrete_actions", [](const rl::Env& e) -> py::object {
        return e.action_space().discrete() ? py::object(py::int_(e.action_space().n)) : py::object(py::none());
      }, "the number of actions of a discrete space; None for a box")
      .def_property_readonly("action_low", [](const rl::Env& e) { return e.action_space().low; })
      .def_property_readonly("action_high", [](const rl::Env& e) { return e.action_space().high; })
      .def_property_readonly("max_episode_steps", &rl::Env::max_episode_steps)
      .def("reset", [](rl::Env& e, py::object seed) {
        const auto obs = seed.is_none() ? e.reset() : e.reset(seed.cast<uint64_t>());
        return py::make_tuple(observation(obs), py::dict());
      }, py::arg("seed") = py::none(), "(observation, info)")
      .def("step", [](rl::Env& e, py::handle action) {
        const rl::Step s = py::isinstance<py::int_>(action) ? e.step(action.cast<int64_t>())
                                                              : e.step(std::span<const float>(floats(action)));
        return py::make_tuple(observation(s.observation), s.reward, s.terminated, s.truncated, py::dict());
      }, py::arg("action"), "(observation, reward, terminated, truncated, info)");
  m.def("make", [](const std::string& id) { return std::shared_ptr<rl::Env>(rl::make_env(id)); }, py::arg("id"),
        "CartPole-v1, Acrobot-v1, MountainCar-v0, MountainCarContinuous-v0, Pendulum-v1");

  py::class_<PyReplayBuffer>(m, "ReplayBuffer", "Uniform experience replay over a ring of transitions.")
      .def(py::init([](int64_t capacity, int64_t observation_size, int64_t action_size, uint64_t seed) {
             return new PyReplayBuffer{rl::ReplayBuffer(capacity, observation_size, action_size), Generator(seed)};
           }), py::arg("capacity"), py::arg("observation_size"), py::arg("action_size") = 1, py::arg("seed") = 0)
      .def("__len__", [](const PyReplayBuffer& b) { return b.buffer.size(); })
      .def("add", [](PyReplayBuffer& b, py::handle obs, py::handle action, float reward, py::handle next_obs,
                     bool terminated) {
        const auto o = floats(obs), a = floats(action), n = floats(next_obs);
        return b.buffer.add(o, a, reward, n, terminated);
      }, py::arg("observation"), py::arg("action"), py::arg("reward"), py::arg("next_observation"), py::arg("terminated"))
      .def("sample", [](PyReplayBuffer& b, int64_t batch) {
        const rl::Transitions t = b.buffer.sample(batch, b.generator);
        py::dict d;
        d["observations"] = t.observations;
        d["actions"] = t.actions;
        d["rewards"] = t.rewards;
        d["next_observations"] = t.next_observations;
        d["terminated"] = t.terminated;
        return d;
      }, py::arg("batch_size"), "A dict of tensors [batch, ...], drawn uniformly with replacement.");

  m.def("discounted_returns", [](py::handle rewards, py::handle dones, double gamma, py::object bootstrap) {
    return rl::discounted_returns(as_tensor(rewards), as_tensor(dones), gamma,
                                  bootstrap.is_none() ? Tensor() : as_tensor(bootstrap));
  }, py::arg("rewards"), py::arg("dones"), py::arg("gamma"), py::arg("bootstrap") = py::none());
  m.def("gae", [](py::handle rewards, py::handle values, py::handle next_values, py::handle terminated, py::handle dones,
                  double gamma, double lam) {
    const rl::Advantages a = rl::gae(as_tensor(rewards), as_tensor(values), as_tensor(next_values),
                                     as_tensor(terminated), as_tensor(dones), gamma, lam);
    return py::make_tuple(a.advantages, a.returns);
  }, py::arg("rewards"), py::arg("values"), py::arg("next_values"), py::arg("terminated"), py::arg("dones"),
     py::arg("gamma") = 0.99, py::arg("lam") = 0.95, "(advantages, returns)");
}

}  // namespace strata::python
