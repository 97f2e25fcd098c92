#include "cli/safety.hpp"

#include <sys/stat.h>

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "ptune/core/io.hpp"

namespace ptune::cli {

namespace {

bool is_output_option(const CLI::Option& option) {
    return option.check_lname("output") || option.check_lname("save-baseline") ||
           option.check_lname("write-baseline");
}

bool exists(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0;
}

}  // namespace

namespace {

CLI::Validator sign_check(bool zero_allowed, const char* description) {
    return CLI::Validator(
        [zero_allowed](std::string& text) -> std::string {
            char* end = nullptr;
            double value = std::strtod(text.c_str(), &end);
            if (end == text.c_str() || *end != '\0')
                return fmt::format("must be a number, got '{}'", text);
            if (!std::isfinite(value))
                return fmt::format("must be a finite number, got '{}'", text);
            if (value < 0 || (!zero_allowed && value == 0))
                return fmt::format("must be {} 0, got '{}'", zero_allowed ? ">=" : ">", text);
            return {};
        },
        description);
}

}  // namespace

const CLI::Validator& non_negative_number() {
    static const CLI::Validator validator = sign_check(true, "NONNEGATIVE");
    return validator;
}

const CLI::Validator& positive_number() {
    static const CLI::Validator validator = sign_check(false, "POSITIVE");
    return validator;
}

void add_number_checks(CLI::App& app) {
    static const CLI::Validator finite(
        [](std::string& text) -> std::string {
            char* end = nullptr;
            double value = std::strtod(text.c_str(), &end);
            if (end == text.c_str() || *end != '\0') return {};  // CLI11 reports a non-number
            if (!std::isfinite(value))
                return fmt::format("must be a finite number, got '{}'", text);
            return {};
        },
        "", "FINITE");  // no description: --help stays as it was
    // CLI11 reads unsigned options with strtoull, which turns "-1" into 2^64-1.
    static const CLI::Validator unsigned_number(
        [](std::string& text) -> std::string {
            auto first = text.find_first_not_of(" \t");
            if (first != std::string::npos && text[first] == '-')
                return fmt::format("must not be negative, got '{}'", text);
            return {};
        },
        "", "UNSIGNED");
    for (CLI::Option* option : app.get_options()) {
        // get_type_name() appends the validators' descriptions: "FLOAT:NONNEGATIVE".
        const std::string type = option->get_type_name();
        const std::string base = type.substr(0, type.find(':'));
        if (base == "FLOAT") option->check(finite);
        if (base == "UINT") option->check(unsigned_number);
    }
}

Status check_output_safety(const CLI::App& sub, const CommonOptions& options) {
    std::vector<std::string> outputs, inputs, side_files;
    for (const CLI::Option* option : sub.get_options()) {
        if (option->count() == 0 || option->get_type_name().empty()) continue;  // flags
        if (option->check_lname("output")) {
            outputs.push_back(options.output);
            continue;
        }
        // A history database (history --db, bench-gate --history): SQLite creates and removes
        // its journal files beside it, so an output there would be gone after the command.
        if (option->check_lname("db") || option->check_lname("history"))
            for (const std::string& value : option->results())
                if (!value.empty() && value.find("://") == std::string::npos)
                    for (const char* suffix : {"", "-wal", "-shm", "-journal"})
                        side_files.push_back(value + suffix);
        for (const std::string& value : option->results()) {
            if (is_output_option(*option)) {
                outputs.push_back(value);
                continue;
            }
            // Any argument naming an existing file is an input; a NAME=PATH label protects both
            // readings.
            if (exists(value)) inputs.push_back(value);
            if (auto eq = value.find('=');
                eq != std::string::npos && eq > 0 && exists(value.substr(eq + 1)))
                inputs.push_back(value.substr(eq + 1));
        }
    }
    if (auto status = io::check_outputs(outputs, inputs, side_files); !status) return status;
    io::protect_outputs(outputs);
    return ok_status();
}

}  // namespace ptune::cli
