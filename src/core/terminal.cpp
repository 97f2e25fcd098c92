#include "ptune/core/terminal.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace ptune::term {

namespace {
bool env_set(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && value[0] != '\0';
}
bool env_true(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}
bool smart_terminal(int fd) {
    const char* term = std::getenv("TERM");
    return isatty(fd) != 0 && !(term != nullptr && std::strcmp(term, "dumb") == 0);
}
double now_seconds() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}
}  // namespace

bool parse_color_mode(std::string_view text, ColorMode& mode) {
    if (text == "auto") mode = ColorMode::Auto;
    else if (text == "always") mode = ColorMode::Always;
    else if (text == "never") mode = ColorMode::Never;
    else return false;
    return true;
}

bool use_color(ColorMode mode, int fd) {
    if (mode == ColorMode::Always) return true;
    if (mode == ColorMode::Never) return false;
    if (env_set("NO_COLOR")) return false;
    if (env_true("CLICOLOR_FORCE") || env_true("FORCE_COLOR")) return true;
    return smart_terminal(fd);
}

std::string paint(std::string_view text, std::string_view sgr_code, bool enabled) {
    if (!enabled) return std::string(text);
    return fmt::format("\x1b[{}m{}\x1b[0m", sgr_code, text);
}

Progress::Progress(std::string label, std::size_t total_bytes, bool quiet)
    : label_(std::move(label)),
      total_(total_bytes),
      enabled_(!quiet && !env_set("CI") && smart_terminal(STDERR_FILENO)),
      started_(now_seconds()) {}

Progress::~Progress() { finish(); }

void Progress::update(std::size_t done_bytes) {
    if (!enabled_ || total_ == 0) return;
    int percent = static_cast<int>(100.0 * static_cast<double>(done_bytes) / static_cast<double>(total_));
    if (percent == last_percent_) return;
    // Only worth showing for work that takes longer than about a second.
    if (!shown_ && now_seconds() - started_ < 0.8) return;
    last_percent_ = percent;
    shown_ = true;
    std::fprintf(stderr, "\r%s %3d%%\x1b[K", label_.c_str(), percent);
    std::fflush(stderr);
}

void Progress::finish() {
    if (shown_) {
        std::fprintf(stderr, "\r\x1b[K");
        std::fflush(stderr);
        shown_ = false;
    }
    enabled_ = false;
}

}  // namespace ptune::term
