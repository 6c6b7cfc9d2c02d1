// `strata hub ...`: list, inspect, export and import the models, datasets and runs of a hub
// (docs/hub.md) from the command line, as aligned tables or, with --json, as JSON.
#pragma once
#include <CLI/CLI.hpp>

namespace strata::cli {

// Adds the `hub` sub-command and its own sub-commands to `app`. Each one, when parsed, runs
// and throws strata::Error on failure (unknown model, bad file, ...).
void add_hub_commands(CLI::App& app);

// `url` with the password of a "scheme://user:password@host" URL replaced by "***"; `text`
// with every occurrence of that password replaced too.
std::string hide_password(const std::string& text, const std::string& url);

}  // namespace strata::cli
