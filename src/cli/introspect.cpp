// Hidden subcommands that describe the CLI from the same App the help text comes from:
//   ptune __complete commands|options CMD|formats CMD|rules   (completions/ptune.bash)
//   ptune __man DIR                                             (the man pages, at build time)
// They are not listed by --help: they serve the shell and the build, not the user.

#include "cli/introspect.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "ptune/core/version.hpp"

namespace ptune::cli {

namespace {

const CommandSpec* find_spec(std::string_view name) {
    for (const auto& spec : command_table()) {
        if (spec.name == name) return &spec;
        for (auto alias : spec.aliases)
            if (alias == name) return &spec;
    }
    return nullptr;
}

CLI::App* find_sub(CLI::App& app, const CommandSpec& spec) {
    for (CLI::App* sub : app.get_subcommands({}))
        if (sub->get_name() == spec.name) return sub;
    return nullptr;
}

// Every flag spelling a command accepts: its own options, then the global ones (--color, -q,
// -v), which fall through from any subcommand.
std::vector<std::string> flags_of(const CLI::App& app, const CLI::App& sub) {
    std::vector<std::string> flags;
    for (const CLI::App* owner : {&sub, &app}) {
        for (const CLI::Option* option : owner->get_options()) {
            if (!option->nonpositional()) continue;
            for (const auto& name : option->get_lnames()) flags.push_back("--" + name);
            for (const auto& name : option->get_snames()) flags.push_back("-" + name);
        }
    }
    return flags;
}

int complete(CLI::App& app, const std::vector<std::string_view>& args,
             const rules::Catalogue* catalogue) {
    auto what = args.empty() ? std::string_view() : args[0];
    if (what == "commands") {
        for (const auto& spec : command_table()) {
            std::cout << spec.name << '\n';
            for (auto alias : spec.aliases) std::cout << alias << '\n';
        }
        std::cout << "help\n";
        return 0;
    }
    if (what == "rules") {
        if (catalogue == nullptr) return static_cast<int>(ExitCode::InternalError);
        // Every id `rules explain` answers to: rule ids and the catalogue numbers.
        std::set<std::string> ids;
        for (const auto& rule : catalogue->rules()) {
            ids.insert(rule.id);
            if (!rule.catalogue.empty()) ids.insert(rule.catalogue);
        }
        for (const auto& id : ids) std::cout << id << '\n';
        return 0;
    }
    if ((what == "options" || what == "formats") && args.size() == 2) {
        const CommandSpec* spec = find_spec(args[1]);
        CLI::App* sub = spec ? find_sub(app, *spec) : nullptr;
        if (sub == nullptr) return static_cast<int>(ExitCode::InputError);
        if (what == "formats") {
            for (auto format : spec->formats) std::cout << format << '\n';
        } else {
            for (const auto& flag : flags_of(app, *sub)) std::cout << flag << '\n';
        }
        return 0;
    }
    std::cerr << "ptune: usage: ptune __complete commands|rules|options CMD|formats CMD\n";
    return static_cast<int>(ExitCode::InputError);
}

// ---------------------------------------------------------------------------------------------
// Man pages (roff, man(7) macros).

std::string roff_escape(std::string_view text) {
    std::string out;
    bool line_start = true;
    // An ellipsis has no glyph on the ASCII device man uses in the C locale (troff warns).
    std::string plain;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text.substr(i, 3) == "\xe2\x80\xa6") {
            plain += "...";
            i += 2;
        } else {
            plain += text[i];
        }
    }
    for (char c : plain) {
        if (c == '\\') {
            out += "\\e";
        } else if (c == '-') {
            // \- is the ASCII hyphen-minus options are typed with; a bare - may become a hyphen.
            out += "\\-";
        } else if ((c == '.' || c == '\'') && line_start) {
            out += "\\&";
            out += c;
        } else {
            out += c;
        }
        line_start = c == '\n';
    }
    return out;
}

// "--format FORMAT" style label of an option, as in the --help listing.
std::string option_label(const CLI::Option& option) {
    std::vector<std::string> names;
    for (const auto& name : option.get_snames()) names.push_back("-" + name);
    for (const auto& name : option.get_lnames()) names.push_back("--" + name);
    std::string label = fmt::format("{}", fmt::join(names, ", "));
    if (option.get_type_size() != 0 && !option.get_type_name().empty())
        label += " " + option.get_type_name();
    return label;
}

void write_options(std::ostream& out, const CLI::App& owner) {
    for (const CLI::Option* option : owner.get_options()) {
        if (option->get_lnames() == std::vector<std::string>{"help"}) continue;
        out << ".TP\n";
        if (option->get_positional())
            out << "\\fI" << roff_escape(option->get_name(true)) << "\\fR\n";
        else
            out << "\\fB" << roff_escape(option_label(*option)) << "\\fR\n";
        out << roff_escape(option->get_description())
            << (option->get_required() && !option->get_positional() ? " (required)" : "") << "\n";
    }
}

// Each example on its own line, verbatim (.nf): man would otherwise fill them into one paragraph.
void write_examples(std::ostream& out, std::string_view examples) {
    out << ".SH EXAMPLES\n.nf\n";
    std::istringstream lines{std::string(examples)};
    std::string line;
    while (std::getline(lines, line)) {
        auto first = line.find_first_not_of(' ');
        out << roff_escape(first == std::string::npos ? "" : line.substr(first)) << '\n';
    }
    out << ".fi\n";
}

void write_trailer(std::ostream& out, std::string_view see_also) {
    out << ".SH \"EXIT STATUS\"\n.TP\n0\nsuccess\n.TP\n1\nfindings or regression\n.TP\n2\n"
           "usage or input error\n.TP\n3\ninternal error\n";
    out << ".SH ENVIRONMENT\n.TP\nNO_COLOR, CLICOLOR_FORCE\ncolour, with \\-\\-color\n"
           ".TP\nCOLUMNS\nthe width text output fits\n";
    out << ".SH \"SEE ALSO\"\n" << see_also << '\n';
}

std::string header(std::string_view page, std::string_view summary) {
    return fmt::format(
        ".\\\" Generated by `ptune __man` from the command table; do not edit.\n"
        ".TH {} 1 \"\" \"ptune {}\" \"User Commands\"\n.SH NAME\n{} \\- {}\n",
        fmt::format("\"{}\"", page), version(), roff_escape(page), roff_escape(summary));
}

// `ptune-history-add(1)`: the action's synopsis with its required options, its options, the
// parent command's and the global ones.
std::string nested_man_page(const CLI::App& app, const CommandSpec& spec, const CLI::App& sub,
                            const CLI::App& nested) {
    std::string page = fmt::format("ptune-{}-{}", spec.name, nested.get_name());
    std::ostringstream out;
    out << header(page, nested.get_description());
    out << ".SH SYNOPSIS\n\\fBptune " << roff_escape(std::string(spec.name)) << " "
        << roff_escape(nested.get_name()) << "\\fR";
    for (const CLI::Option* option : nested.get_options()) {
        if (option->get_positional())
            out << " \\fI" << roff_escape(option->get_name(true)) << "\\fR...";
        else if (option->get_required())
            out << " \\fB" << roff_escape(option_label(*option)) << "\\fR";
    }
    out << " [\\fIOPTIONS\\fR]\n.SH DESCRIPTION\n"
        << roff_escape(nested.get_description()) << ".\n.SH OPTIONS\n";
    write_options(out, nested);
    out << ".SS \"Options of ptune " << roff_escape(std::string(spec.name)) << "\"\n";
    write_options(out, sub);
    out << ".SS \"Global options\"\n";
    write_options(out, app);
    write_trailer(out, fmt::format("\\fBptune\\-{}\\fR(1), \\fBptune\\fR(1)",
                                   roff_escape(std::string(spec.name))));
    return out.str();
}

int write_man_pages(CLI::App& app, std::string_view directory) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(directory, ec);
    std::vector<std::string> pages;
    for (const auto& spec : command_table()) pages.push_back(fmt::format("ptune-{}", spec.name));

    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream file(fs::path(directory) / (name + ".1"));
        file << text;
        return file.good();
    };
    bool good = true;
    {
        std::ostringstream out;
        out << header("ptune", "performance-analysis toolkit for PyPTO kernels on Ascend NPUs");
        out << ".SH SYNOPSIS\n\\fBptune\\fR [\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n";
        out << ".SH DESCRIPTION\n" << roff_escape(app.get_description()) << "\n";
        out << ".SH COMMANDS\n";
        for (const auto& spec : command_table()) {
            out << ".TP\n\\fBptune\\-" << roff_escape(spec.name) << "\\fR(1)";
            for (auto alias : spec.aliases) out << " (alias \\fB" << roff_escape(alias) << "\\fR)";
            out << '\n' << roff_escape(spec.summary) << '\n';
        }
        out << ".SH OPTIONS\n";
        write_options(out, app);
        write_examples(out,
                       "ptune bench run.log\nptune swimlane-merge dfx_outputs/ -o trace.json\n"
                       "ptune advise build_output/\nptune help bench-gate\n");
        std::vector<std::string> see;
        for (const auto& page : pages)
            see.push_back(fmt::format("\\fB{}\\fR(1)", roff_escape(page)));
        write_trailer(out, fmt::format("{}", fmt::join(see, ", ")));
        good = write("ptune", out.str()) && good;
    }
    for (const auto& spec : command_table()) {
        CLI::App* sub = find_sub(app, spec);
        if (sub == nullptr) continue;
        std::string page = fmt::format("ptune-{}", spec.name);
        std::ostringstream out;
        out << header(page, spec.summary);
        out << ".SH SYNOPSIS\n\\fBptune " << roff_escape(spec.name) << "\\fR [\\fIOPTIONS\\fR]";
        for (const CLI::Option* option : sub->get_options())
            if (option->get_positional())
                out << " \\fI" << roff_escape(option->get_name(true)) << "\\fR...";
        out << "\n.SH DESCRIPTION\n" << roff_escape(spec.summary) << ".\n";
        if (!spec.aliases.empty())
            out << ".PP\nAlso spelt \\fBptune " << roff_escape(spec.aliases.front()) << "\\fR.\n";
        out << ".SH OPTIONS\n";
        write_options(out, *sub);
        out << ".SS \"Global options\"\n";
        write_options(out, app);
        // The examples block of the table holds prose lines after the commands (formats, exit
        // policy): those that do not start with `ptune` become a NOTES paragraph.
        std::string examples, notes;
        std::istringstream lines{std::string(spec.examples)};
        std::string line;
        while (std::getline(lines, line)) {
            auto first = line.find_first_not_of(' ');
            if (first != std::string::npos && line.compare(first, 6, "ptune ") == 0)
                examples += line + '\n';
            else
                notes += line + '\n';
        }
        write_examples(out, examples);
        if (!notes.empty()) out << ".SH NOTES\n" << roff_escape(notes);
        // A command with actions (history add, list...) gets a page per action, as git does.
        std::vector<std::string> see = {"\\fBptune\\fR(1)"};
        for (const CLI::App* nested : sub->get_subcommands({})) {
            std::string nested_page = fmt::format("{}-{}", page, nested->get_name());
            see.push_back(fmt::format("\\fB{}\\fR(1)", roff_escape(nested_page)));
            good = write(nested_page, nested_man_page(app, spec, *sub, *nested)) && good;
        }
        write_trailer(out, fmt::format("{}", fmt::join(see, ", ")));
        good = write(page, out.str()) && good;
    }
    if (!good) {
        std::cerr << fmt::format("ptune: cannot write the man pages to {}\n", directory);
        return static_cast<int>(ExitCode::InputError);
    }
    return 0;
}

}  // namespace

std::optional<int> run_hidden(CLI::App& app, int argc, char** argv) {
    if (argc < 2) return std::nullopt;
    std::string_view command = argv[1];
    std::vector<std::string_view> args(argv + 2, argv + argc);
    if (command == "__complete") {
        auto catalogue = rules::Catalogue::builtin();
        return complete(app, args, catalogue ? &*catalogue : nullptr);
    }
    if (command == "__man") {
        if (args.size() != 1) {
            std::cerr << "ptune: usage: ptune __man DIR\n";
            return static_cast<int>(ExitCode::InputError);
        }
        return write_man_pages(app, args[0]);
    }
    return std::nullopt;
}

bool is_hidden_command(std::string_view word) {
    return word == "__complete" || word == "__man";
}

}  // namespace ptune::cli
