// Builds the CLI11 app from the subcommand table, parses, dispatches, and maps every failure to
// the documented exit codes.

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <mutex>
#include <new>

#include <fmt/format.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "cli/command.hpp"
#include "cli/introspect.hpp"
#include "cli/safety.hpp"
#include "ptune/ciresult/inputs.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/terminal.hpp"
#include "ptune/core/text.hpp"
#include "ptune/core/text_match.hpp"
#include "ptune/core/version.hpp"

namespace ptune::cli {

std::size_t stderr_note_width() {
    const char* columns = std::getenv("COLUMNS");
    bool set = columns != nullptr && *columns != '\0';
    return set || isatty(STDERR_FILENO) != 0 ? term::output_width(STDERR_FILENO) : 0;
}

namespace {

constexpr std::string_view kExitCodes =
    "Exit codes: 0 success, 1 findings or regression, 2 usage or input error, 3 internal error.";

std::vector<std::string> known_names() {
    std::vector<std::string> names = {"help"};
    for (const auto& spec : command_table()) {
        names.emplace_back(spec.name);
        for (auto alias : spec.aliases) names.emplace_back(alias);
    }
    return names;
}

int unknown_command(std::string_view word) {
    // "did you mean" for a misspelt subcommand (CLI11 2.1 has none); a prefix counts as close.
    std::string hint = text::closest_match(word, known_names(), {.prefix_is_close = true});
    std::cerr << fmt::format("ptune: unknown command '{}'", word);
    if (!hint.empty()) std::cerr << fmt::format("; did you mean '{}'?", hint);
    std::cerr << "\nRun 'ptune --help' for the list of commands.\n";
    return static_cast<int>(ExitCode::InputError);
}

// Every spelling of the options `app` accepts (`--threshold`, `-o`), its parents' included
// (global options such as --color fall through to subcommands).
std::vector<std::string> option_names(const CLI::App* app) {
    std::vector<std::string> names;
    // A parsed action's own options too (`history changes --alpha`).
    for (const CLI::App* action : app->get_subcommands()) {
        for (const auto& name : option_names(action)) names.push_back(name);
    }
    for (; app != nullptr; app = app->get_parent()) {
        for (const CLI::Option* option : app->get_options()) {
            for (const auto& name : option->get_lnames()) names.push_back("--" + name);
            for (const auto& name : option->get_snames()) names.push_back("-" + name);
        }
    }
    return names;
}

// The names of `app`'s nested subcommands (history's add, list, show...).
std::vector<std::string> action_names(const CLI::App* app) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app->get_subcommands({})) names.push_back(sub->get_name());
    return names;
}

// Whether a token starting with '-' is a number (`-inf`, `-nan`, `-.5`) rather than an option.
bool looks_numeric(std::string_view token) {
    std::string text(token);
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    return end != text.c_str() && *end == '\0';
}

// A parse error in ptune's voice: `ptune: ` prefix, the first unknown option named with the
// nearest real one, and where to read the options.
int parse_failure(const CLI::ParseError& error, const CLI::App* app, int argc, char** argv) {
    // A nested command (`history add`): its own options and help, and a mistyped action named
    // with the nearest real one, as for a top-level command.
    std::string command = app->get_parent() != nullptr ? " " + app->get_name() : "";
    if (auto actions = action_names(app); !actions.empty() && argc > 2) {
        std::string_view word = argv[2];
        const CLI::App* nested = nullptr;
        for (const CLI::App* sub : app->get_subcommands({}))
            if (sub->check_name(std::string(word))) nested = sub;
        if (nested != nullptr) {
            app = nested;
            command += " " + nested->get_name();
        } else if (!word.empty() && word[0] != '-') {
            std::string hint = text::closest_match(word, actions, {.prefix_is_close = true});
            std::cerr << fmt::format("ptune: unknown{} action '{}'", command, word);
            if (!hint.empty()) std::cerr << fmt::format("; did you mean '{}'?", hint);
            std::cerr << fmt::format("\nRun 'ptune help{}' for its actions.\n", command);
            return static_cast<int>(ExitCode::InputError);
        }
    }
    auto names = option_names(app);
    for (int i = 1; i < argc; ++i) {
        std::string_view token = argv[i];
        if (token == "--") break;
        if (token.size() < 2 || token[0] != '-' ||
            std::isdigit(static_cast<unsigned char>(token[1])))
            continue;
        // `--threshold -inf`: a negative or non-finite value that CLI11 reads as an option.
        if (i > 1 && looks_numeric(token) &&
            std::find(names.begin(), names.end(), argv[i - 1]) != names.end()) {
            std::cerr << fmt::format(
                "ptune: the value '{}' of option '{}' reads as an option; write {}={}\n"
                "Run 'ptune help{}' for the options.\n",
                token, argv[i - 1], argv[i - 1], token, command);
            return static_cast<int>(ExitCode::InputError);
        }
        std::string name(token.substr(0, token.find('=')));
        if (name.size() > 2 && name[1] != '-') name = name.substr(0, 2);  // -oFILE
        if (std::find(names.begin(), names.end(), name) != names.end()) continue;
        std::string hint = text::closest_match(name, names);
        std::cerr << fmt::format("ptune: unknown option '{}'", name);
        if (!hint.empty()) std::cerr << fmt::format("; did you mean '{}'?", hint);
        std::cerr << fmt::format("\nRun 'ptune help{}' for the options.\n", command);
        return static_cast<int>(ExitCode::InputError);
    }
    std::cerr << fmt::format("ptune: {}\nRun 'ptune help{}' for the options.\n", error.what(),
                             command);
    return static_cast<int>(ExitCode::InputError);
}

// CLI11's help, wrapped to the output width like every text output: an option's description
// continues under itself, other long lines under their indentation.
class WrappingFormatter : public CLI::Formatter {
  public:
    std::string make_help(const CLI::App* app, std::string name,
                          CLI::AppFormatMode mode) const override {
        return wrap_help(CLI::Formatter::make_help(app, std::move(name), mode),
                         term::output_width(STDOUT_FILENO));
    }

    static std::string wrap_help(const std::string& help, std::size_t width) {
        std::string out;
        std::size_t start = 0;
        while (start < help.size()) {
            std::size_t end = help.find('\n', start);
            if (end == std::string::npos) end = help.size();
            std::string_view line(help.data() + start, end - start);
            out += term::display_width(line) <= width ? std::string(line) : wrap_line(line, width);
            if (end < help.size()) out += '\n';
            start = end + 1;
        }
        return out;
    }

  private:
    static std::string wrap_line(std::string_view line, std::size_t width) {
        std::size_t indent = line.find_first_not_of(' ');
        if (indent == std::string_view::npos) return std::string(line);
        // `  --name TYPE   Description`: the description starts after the widest blank run.
        std::size_t column = indent;
        std::size_t gap = line.find("  ", indent);
        if (gap != std::string_view::npos) {
            std::size_t text = line.find_first_not_of(' ', gap);
            if (text != std::string_view::npos && text <= width / 2) column = text;
        }
        return term::hang(line.substr(0, column), line.substr(column), width, column);
    }
};

// Notes on stderr (`ptune: picked ...`) wrapped like stdout: at $COLUMNS or the terminal's
// width, continuation lines indented; left whole when stderr is a file or pipe without
// $COLUMNS, where a log is read with grep.
class WrappingStderrSink : public spdlog::sinks::base_sink<std::mutex> {
  protected:
    void sink_it_(const spdlog::details::log_msg& message) override {
        std::string_view text(message.payload.data(), message.payload.size());
        std::size_t width = stderr_note_width();
        std::cerr << (width == 0 ? "ptune: " + std::string(text)
                                 : term::hang("ptune: ", text, width, 4))
                  << '\n';
    }
    void flush_() override { std::cerr.flush(); }
};

void setup_logging(const CommonOptions& options) {
    auto logger = std::make_shared<spdlog::logger>("ptune", std::make_shared<WrappingStderrSink>());
    spdlog::register_logger(logger);
    logger->set_level(options.quiet          ? spdlog::level::err
                      : options.verbose > 1  ? spdlog::level::trace
                      : options.verbose == 1 ? spdlog::level::debug
                                             : spdlog::level::info);
    spdlog::set_default_logger(logger);
}

std::string main_footer() {
    std::string footer =
        "\nExamples:\n  ptune bench run.log\n  ptune swimlane-merge dfx_outputs/ -o trace.json\n"
        "  ptune advise build_output/\n  ptune help bench-gate\n\n";
    footer += std::string(kExitCodes);
    footer +=
        "\nColour follows --color, NO_COLOR, CLICOLOR_FORCE and whether stdout is a terminal.";
    return footer;
}

}  // namespace

#if defined(__SANITIZE_ADDRESS__)
#define PTUNE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTUNE_SANITIZED 1
#endif
#endif

namespace {

/// Ends the process once a command is done and its outputs are committed or removed. Freeing
/// a large model (a sweep log's cases, a trace's events) costs up to a tenth of the run, and
/// the operating system reclaims it anyway. Sanitizer builds return normally so that the leak
/// checker still sees every allocation released.
int exit_without_teardown(int code) {
#if defined(PTUNE_SANITIZED)
    return code;
#else
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    spdlog::shutdown();
    std::_Exit(code);
#endif
}

using CommandList = std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>>;

/// One subcommand of the table on `app`: its common options (--format, -o, --rules), then its
/// own.
std::pair<CLI::App*, std::unique_ptr<Command>> add_command(CLI::App& app, const CommandSpec& spec,
                                                           CommonOptions& options) {
    CLI::App* sub = app.add_subcommand(std::string(spec.name), std::string(spec.summary));
    for (auto alias : spec.aliases) sub->alias(std::string(alias));
    sub->footer(fmt::format("\nExamples:\n{}\n{}", spec.examples, kExitCodes));
    if (!spec.formats.empty()) {
        options.format = std::string(spec.formats.front());
        std::vector<std::string> formats(spec.formats.begin(), spec.formats.end());
        sub->add_option("--format", options.format,
                        fmt::format("Output format: {} (default {})", fmt::join(formats, ", "),
                                    formats.front()))
            ->check(CLI::IsMember(formats));
    }
    if (spec.writes_output)
        sub->add_option("-o,--output", options.output, "Write to FILE atomically ('-' is stdout)");
    if (spec.uses_rules) {
        // One file per --rules, so a positional after it stays one.
        sub->add_option("--rules", options.rules_files,
                        "Rules file adding or overriding rules and thresholds (repeatable)")
            ->allow_extra_args(false);
    }
    auto command = spec.make();
    command->configure(*sub);
    add_number_checks(*sub);
    return {sub, std::move(command)};
}

/// `ptune help [CMD]`, answered before parsing: CLI11 would take CMD for the subcommand itself
/// and run or reject it instead of describing it.
std::optional<int> answer_help(const CLI::App& app, const CommandList& commands, int argc,
                               char** argv) {
    if (argc <= 1 || std::string_view(argv[1]) != "help") return std::nullopt;
    if (argc == 2) {
        std::cout << app.help();
        return 0;
    }
    for (const auto& [sub, command] : commands) {
        if (!sub->check_name(argv[2])) continue;
        if (argc == 3) {
            std::cout << sub->help("ptune");
            return 0;
        }
        // `ptune help history add`: the nested command's own help.
        for (const CLI::App* nested : sub->get_subcommands({})) {
            if (nested->check_name(argv[3])) {
                std::cout << nested->help(fmt::format("ptune {}", sub->get_name()));
                return 0;
            }
        }
        auto actions = action_names(sub);
        std::string hint = text::closest_match(argv[3], actions, {.prefix_is_close = true});
        std::cerr << fmt::format("ptune: '{}' has no action '{}'", sub->get_name(), argv[3]);
        if (!hint.empty()) std::cerr << fmt::format("; did you mean '{}'?", hint);
        std::cerr << fmt::format("\nRun 'ptune help {}' for {}.\n", sub->get_name(),
                                 actions.empty() ? "its options" : "its actions");
        return static_cast<int>(ExitCode::InputError);
    }
    return unknown_command(argv[2]);
}

/// Runs the parsed command under one Context, whose scope ends first: it removes unfinished
/// outputs. Exceptions become exit codes here, the CLI's edge.
int run_command(CLI::App& sub, Command& command, const CommandSpec& spec, CommonOptions& options) {
    // The default format is the first of this command's list.
    if (!spec.formats.empty() && sub.count("--format") == 0)
        options.format = std::string(spec.formats.front());
    options.fail_on = spec.fail_on;
    Context context(options);
    if (auto status = check_output_safety(sub, options); !status)
        return context.fail(status.error());
    try {
        int code = command.run(context);
        context.flush_diagnostics();
        return code;
    } catch (const std::bad_alloc&) {
        // A valid input too large for the memory (or address-space limit) at hand: a clear
        // error, not an internal one; unfinished outputs go with the context.
        context.flush_diagnostics();
        std::cerr << "ptune: out of memory: the input is too large to analyse in the memory "
                     "available (docs/RELIABILITY.md, Limits)\n";
        return static_cast<int>(ExitCode::InputError);
    } catch (const std::exception& e) {
        context.flush_diagnostics();
        std::cerr << fmt::format("ptune: internal error: {}\n", e.what());
        return static_cast<int>(ExitCode::InternalError);
    }
}

}  // namespace

int run(int argc, char** argv) {
    io::install_cleanup_handlers();
    ciresult::install_bench_reader();  // daily-CI / operator-suite results as bench inputs
    CommonOptions options;

    if (argc > 1 && argv[1][0] != '-' && !is_hidden_command(argv[1])) {
        auto names = known_names();
        if (std::find(names.begin(), names.end(), argv[1]) == names.end())
            return unknown_command(argv[1]);
    }

    CLI::App app{"ptune: performance-analysis toolkit for PyPTO kernels on Ascend NPUs", "ptune"};
    app.formatter(std::make_shared<WrappingFormatter>());  // subcommands inherit it
    app.footer(main_footer());
    app.set_version_flag("--version", fmt::format("ptune {}", version()));
    app.add_option("--color", options.color, "Colour: auto, always or never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    app.add_flag("-q,--quiet", options.quiet, "Only errors on stderr");
    app.add_flag("-v,--verbose", options.verbose, "More detail on stderr (repeatable)");
    app.fallthrough();

    // Listed for --help; answered before parsing (answer_help).
    app.add_subcommand("help", "Show help for a command (ptune help CMD)")->allow_extras();

    CommandList commands;
    for (const auto& spec : command_table()) commands.push_back(add_command(app, spec, options));

    // Completion data and man pages, from this very App (src/cli/introspect.cpp).
    if (auto hidden = run_hidden(app, argc, argv)) return *hidden;
    if (auto help = answer_help(app, commands, argc, argv)) return *help;

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version arrive as "errors" that exit 0.
        if (e.get_exit_code() == 0) return app.exit(e);
        const CLI::App* failed = &app;
        for (auto& [sub, command] : commands) {
            if (argc > 1 && sub->check_name(argv[1])) failed = sub;
        }
        return parse_failure(e, failed, argc, argv);
    }
    setup_logging(options);

    for (std::size_t i = 0; i < commands.size(); ++i) {
        auto& [sub, command] = commands[i];
        if (sub->parsed())
            return exit_without_teardown(run_command(*sub, *command, command_table()[i], options));
    }
    std::cerr << app.help();
    return static_cast<int>(ExitCode::InputError);
}

}  // namespace ptune::cli
