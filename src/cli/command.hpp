#pragma once
// The CLI layer: a declarative subcommand table and the context each command runs in.
// Only this folder and src/main.cpp know CLI11; everything below is ptune::core.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "ptune/core/diagnostics.hpp"
#include "ptune/core/error.hpp"
#include "ptune/core/io.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"

namespace ptune::cli {

/// Options every subcommand accepts (those that do not apply are not registered).
struct CommonOptions {
    std::string format;
    std::string output = "-";
    std::string color = "auto";
    bool quiet = false;
    int verbose = 0;
    std::vector<std::string> rules_files;
    /// Findings at or above this severity mean exit 1 (the table's column; a command's own flag,
    /// such as hints-lint's --fail-on, may change it). nullopt: findings never fail.
    std::optional<rules::RuleSeverity> fail_on;
};

/// What a running command may use: options, diagnostics, the catalogue and the output.
class Context {
  public:
    explicit Context(CommonOptions& options) : options(options) {}

    CommonOptions& options;
    Diagnostics diagnostics;

    /// Paths the command reads; `-o` naming one of them is refused.
    void add_inputs(const std::vector<std::string>& paths);
    const std::vector<std::string>& inputs() const { return inputs_; }
    /// The same for arguments that may be `NAME=PATH` labels: both readings are protected.
    void add_labelled_inputs(const std::vector<std::string>& arguments);

    /// The built-in catalogue merged with every --rules FILE (loaded once).
    Result<const rules::Catalogue*> catalogue();

    /// Prints the collected diagnostics on stderr (capped per file unless -v) and clears them.
    void flush_diagnostics();

    /// Renders `report` in the chosen --format to --output, atomically. `custom` adds a command's
    /// own formats. Returns 0, or 2 when the output cannot be written.
    int emit(const render::Report& report,
             const std::map<std::string, std::shared_ptr<render::Renderer>>& custom = {});

    /// Appends `report` as Markdown under `## title` to $GITHUB_STEP_SUMMARY when it is set
    /// (other steps may have written to it: the file is rewritten atomically with their text).
    /// Returns 0, or the exit code of a failed write.
    int append_step_summary(std::string_view title, const render::Report& report);

    /// Opens --output (or another path) atomically, refusing to write over an input.
    Result<std::unique_ptr<io::AtomicOutput>> open_output(const std::string& path);

    /// The exit code for a command's findings, by the one policy (rules::findings_exit_code)
    /// with this command's --fail-on severity.
    int findings_exit(const std::vector<rules::Finding>& findings) const;
    int findings_exit(std::optional<rules::RuleSeverity> worst) const;

    /// Prints `ptune: <error>` on stderr (after pending diagnostics) and returns its exit code.
    int fail(const Error& error);

    /// True when text output on stdout may use colour.
    bool color_stdout() const;
    bool color_stderr() const;

  private:
    std::vector<std::string> inputs_;
    std::optional<rules::Catalogue> catalogue_;
    std::vector<std::string> printed_errors_;  ///< error diagnostics shown, as Error::to_string
};

/// A subcommand: registers its own options, then runs.
class Command {
  public:
    virtual ~Command() = default;
    /// Adds positionals and options to the subcommand's App.
    virtual void configure(CLI::App& app) = 0;
    /// Runs after parsing; returns the exit code.
    virtual int run(Context& context) = 0;
};

/// One row of the subcommand table.
struct CommandSpec {
    std::string_view name;
    std::vector<std::string_view> aliases;
    std::string_view summary;
    std::string_view examples;              ///< shown at the end of the command's --help
    std::vector<std::string_view> formats;  ///< allowed --format values, default first
    bool uses_rules = false;                ///< accepts --rules FILE
    bool writes_output = true;              ///< accepts -o/--output
    /// Findings at or above this severity mean exit 1; nullopt: findings never fail.
    std::optional<rules::RuleSeverity> fail_on;
    std::unique_ptr<Command> (*make)() = nullptr;
};

/// The subcommand table, in the order `ptune --help` lists it.
const std::vector<CommandSpec>& command_table();

/// Parses argv, dispatches, maps errors to exit codes.
int run(int argc, char** argv);

}  // namespace ptune::cli
