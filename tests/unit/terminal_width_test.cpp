// The shared text-width facility (core/terminal.hpp) and the table and findings layout built on
// it (render/report.hpp): nothing wider than the width but a single unbreakable token.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <span>
#include <sstream>

#include "ptune/core/terminal.hpp"
#include "ptune/core/text.hpp"
#include "ptune/render/report.hpp"
#include "ptune/rules/engine.hpp"

namespace terminal_width_test {

using ptune::term::display_width;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::size_t widest(const std::string& text) {
    std::size_t width = 0;
    for (const auto& line : lines_of(text)) width = std::max(width, display_width(line));
    return width;
}

}  // namespace

TEST_CASE("output width: COLUMNS, else 100 when not a terminal", "[terminal]") {
    ::setenv("COLUMNS", "72", 1);
    CHECK(ptune::term::output_width(-1) == 72);
    ::setenv("COLUMNS", "junk", 1);
    CHECK(ptune::term::output_width(-1) == ptune::term::kDefaultWidth);
    ::setenv("COLUMNS", "5", 1);
    CHECK(ptune::term::output_width(-1) == 20);  // never absurdly narrow
    ::unsetenv("COLUMNS");
    CHECK(ptune::term::output_width(-1) == 100);
}

TEST_CASE("display width counts code points and skips colour", "[terminal]") {
    CHECK(display_width("min (µs)") == 8);
    CHECK(display_width("\x1b[31m[error]\x1b[0m") == 7);
}

TEST_CASE("display width and UTF-8 checks see a special byte at any place of a word",
          "[terminal]") {
    // ASCII is taken eight bytes at a time: put a colour code, a two-byte character or a bad
    // byte at every offset of a 24-byte text, so that each falls in each place of a word and
    // in the byte-wise tail.
    for (std::size_t at = 0; at <= 24; ++at) {
        std::string text(24, 'x');
        INFO("at " << at);
        CHECK(display_width(text) == 24);
        CHECK(ptune::text::is_valid_utf8(text));
        CHECK(display_width(std::string(text).insert(at, "\x1b[1m")) == 24);
        CHECK(display_width(std::string(text).insert(at, "\xc2\xb5")) == 25);  // µ: one column
        CHECK(ptune::text::is_valid_utf8(std::string(text).insert(at, "\xc2\xb5")));
        CHECK_FALSE(ptune::text::is_valid_utf8(std::string(text).insert(at, "\xff")));
        CHECK_FALSE(ptune::text::is_valid_utf8(std::string(text).insert(at, "\xc2")));
    }
}

TEST_CASE("paths shorten from the left", "[terminal]") {
    using ptune::term::elide_left;
    CHECK(elide_left("short/path.py", 40) == "short/path.py");
    std::string path = "examples/build_output/PagedAttn_20260715_103000/dfx_outputs/pmu.csv";
    std::string cut = elide_left(path, 30);
    CHECK(display_width(cut) <= 30);
    CHECK(cut == "…/dfx_outputs/pmu.csv");
    // No separator in the tail: cut inside the name.
    CHECK(elide_left("abcdefghijklmnopqrstuvwxyz", 10) == "…rstuvwxyz");
}

TEST_CASE("wrap keeps words whole", "[terminal]") {
    using ptune::term::wrap;
    auto lines = wrap("the quick brown fox jumps over the lazy dog", 10);
    REQUIRE(lines.size() == 5);
    CHECK(lines[0] == "the quick");
    for (const auto& line : lines) CHECK(display_width(line) <= 10);
    CHECK(wrap("a\nb", 10) == std::vector<std::string>{"a", "b"});
    CHECK(wrap("x abcdefghijklmno", 8) == std::vector<std::string>{"x", "abcdefghijklmno"});
    CHECK(wrap("cross.mte2-bound-with-ph001 P2", 12) ==
          std::vector<std::string>{"cross.mte2-bound-with-ph001", "P2"});
}

namespace {

std::vector<std::string> words_of(std::string_view text) {
    std::vector<std::string> words;
    for (auto word : ptune::text::split(text, ' '))
        if (!word.empty()) words.emplace_back(word);
    return words;
}

// `lines` are a greedy layout of `words`, the first line in `first_room` columns and the others
// in `room`: each line is its words joined by single blanks, fits its room unless it is one word
// wider, and could not have taken the next line's first word.
void check_greedy(const std::vector<std::string>& lines, const std::vector<std::string>& words,
                  std::size_t first_room, std::size_t room) {
    std::vector<std::string> laid_out;
    for (std::size_t l = 0; l < lines.size(); ++l) {
        INFO("line " << l << " '" << lines[l] << "'");
        const std::vector<std::string> line_words = words_of(lines[l]);
        std::string joined;
        for (const auto& word : line_words) joined += (joined.empty() ? "" : " ") + word;
        CHECK(lines[l] == joined);
        const std::size_t fits = l == 0 ? first_room : room;
        CHECK((lines[l].size() <= fits || line_words.size() == 1));
        if (l + 1 < lines.size() && !lines[l].empty())
            CHECK(lines[l].size() + 1 + words_of(lines[l + 1]).front().size() > fits);
        laid_out.insert(laid_out.end(), line_words.begin(), line_words.end());
    }
    CHECK(laid_out == words);
}

}  // namespace

TEST_CASE("wrap and hang lay out plain single-spaced text greedily", "[terminal]") {
    // Words of every length about the widths (one wider than any line): the texts whose lines
    // are pieces of them, laid out without a word-by-word pass.
    const std::vector<std::string> vocabulary = {"a",
                                                 "to",
                                                 "the",
                                                 "mean",
                                                 "1.05",
                                                 "median",
                                                 "effective_us",
                                                 "interference,",
                                                 "abcdefghijklmnopqrstuvwxyz0123"};
    std::srand(7);
    for (int round = 0; round < 5000; ++round) {
        std::string text;
        const int count = 1 + std::rand() % 30;
        for (int w = 0; w < count; ++w)
            text += (w ? " " : "") + vocabulary[std::rand() % vocabulary.size()];
        const std::vector<std::string> words = words_of(text);
        const std::size_t width = 1 + static_cast<std::size_t>(std::rand() % 45);
        INFO("text '" << text << "', width " << width);
        check_greedy(ptune::term::wrap(text, width), words, width, width);
        CHECK(ptune::term::wrap(text, 0) == std::vector<std::string>{text});  // 0: no limit

        // A finding's head, then continuation lines under `indent` blanks (at least 10 columns).
        const std::string first(static_cast<std::size_t>(std::rand() % 20), 'h');
        const std::size_t indent = static_cast<std::size_t>(std::rand() % 12);
        std::vector<std::string> lines =
            lines_of(ptune::term::hang(first + ": ", text, width, indent));
        REQUIRE(lines.front().starts_with(first + ":"));
        lines.front().erase(0, std::min(lines.front().size(), first.size() + 2));
        for (std::size_t l = 1; l < lines.size(); ++l) {
            REQUIRE(lines[l].starts_with(std::string(indent, ' ')));
            lines[l].erase(0, indent);
        }
        // The first word starts on the next line when it does not fit after the head.
        const bool moved = lines.front().empty();
        CHECK(moved == (first.size() + 2 + words.front().size() > width));
        if (moved) lines.erase(lines.begin());
        const std::size_t room = width > indent + 10 ? width - indent : 10;
        check_greedy(lines, words, moved ? room : width - first.size() - 2, room);
    }
    CHECK(ptune::term::wrap("", 10) == std::vector<std::string>{""});
    CHECK(ptune::term::wrap("abc def", 7) == std::vector<std::string>{"abc def"});
    CHECK(ptune::term::wrap("abc def", 6) == std::vector<std::string>{"abc", "def"});
    CHECK(ptune::term::wrap("abcdefgh ij", 3) == std::vector<std::string>{"abcdefgh", "ij"});
    CHECK(ptune::term::wrap("a  b\n c", 10) == std::vector<std::string>{"a b", "c"});
}

TEST_CASE("hang wraps under its first line", "[terminal]") {
    std::string text = ptune::term::hang(
        "    advice: ", "one two three four five six seven eight nine ten eleven", 30, 12);
    auto lines = lines_of(text);
    REQUIRE(lines.size() > 1);
    CHECK(lines[0].rfind("    advice: one", 0) == 0);
    for (std::size_t i = 1; i < lines.size(); ++i) CHECK(lines[i].rfind("            ", 0) == 0);
    CHECK(widest(text) <= 30);
    CHECK(ptune::term::hang("a: ", "b", 0, 4) == "a: b");
}

TEST_CASE("hang starts the text on the next line when its first line is nearly full",
          "[terminal]") {
    // A finding's head with a long subject path leaves fewer than 10 columns on its line.
    std::string first(25, 'h');
    first += ": ";
    std::string text = ptune::term::hang(first, "reaches 96.88% of the ring heap", 30, 4);
    auto lines = lines_of(text);
    REQUIRE(lines.size() > 1);
    CHECK(lines[0] == std::string(25, 'h') + ":");
    CHECK(widest(text) <= 30);
}

TEST_CASE("a table wider than the width narrows its text columns", "[terminal][render]") {
    ptune::render::Table table;
    table.columns = {"case", "min (µs)", "source"};
    table.align = {ptune::render::Align::Left, ptune::render::Align::Right,
                   ptune::render::Align::Left};
    table.rows = {
        {"l3_two_card_report", "92585.6",
         "examples/logs/a/very/long/directory/name/that/goes/on/l3_two_card_report.log:1"},
        {"finding", "1.0",
         "a long message in words that has to wrap onto more lines of its row because "
         "it is far wider than the column"}};
    std::ostringstream out;
    ptune::render::write_text_table(table, out, 60);
    CHECK(widest(out.str()) <= 60);
    // The path keeps its end, behind an ellipsis at a separator.
    CHECK(out.str().find("/l3_two_card_report.log:1") != std::string::npos);
    CHECK(out.str().find("…/") != std::string::npos);
    CHECK(out.str().find("examples/logs") == std::string::npos);
    CHECK(out.str().find("92585.6") != std::string::npos);
    std::ostringstream unlimited;
    ptune::render::write_text_table(table, unlimited, 0);
    CHECK(lines_of(unlimited.str()).size() == 3);
}

// advise's table printed `cross.mte2-bound-with` / `-ph001`: a 12-column text column cut the rule
// id in two. A column gets its longest token when the width allows, and a token that cannot fit
// overflows its line whole.
TEST_CASE("table cells never split a token", "[terminal][render]") {
    using ptune::render::Align;
    ptune::render::Table table;
    table.columns = {"kernel", "rule", "finding"};
    table.align = {Align::Left, Align::Left, Align::Left};
    table.rows = {{"SF", "cross.mte2-bound-with-ph001",
                   "MTE2 is busy 77.7% of the cycles and the perf hint PH001 names the same "
                   "copy, a message long enough to wrap onto several lines of its row"},
                  {"QK", "pmu.low-cube", "short"}};
    std::ostringstream out;
    ptune::render::write_text_table(table, out, 70);
    CHECK(widest(out.str()) <= 70);
    CHECK(out.str().find("cross.mte2-bound-with-ph001") != std::string::npos);
    CHECK(out.str().find("PH001") != std::string::npos);
    CHECK(out.str().find("perf hint") != std::string::npos);

    // Too narrow for the token next to the key column: it overflows, whole, on its own line.
    table.rows[0][1] = "cross." + std::string(60, 'x') + "-ph001";
    std::ostringstream narrow;
    ptune::render::write_text_table(table, narrow, 50);
    CHECK(narrow.str().find(table.rows[0][1]) != std::string::npos);
    // ... and alone on its line: the overflow covers no other cell.
    for (const auto& line : lines_of(narrow.str())) {
        bool one_token = line.find(' ', line.find_first_not_of(' ')) == std::string::npos;
        CHECK((display_width(line) <= 50 || one_token));
    }
    // A number in a wrapped text cell stays whole too.
    ptune::render::Table numbers;
    numbers.columns = {"k", "note"};
    numbers.align = {Align::Left, Align::Left};
    numbers.rows = {{"a", "took 123456789.123 µs in total, which is a long time for a kernel"}};
    std::ostringstream wrapped;
    ptune::render::write_text_table(numbers, wrapped, 30);
    CHECK(wrapped.str().find("123456789.123") != std::string::npos);
}

// swimlane-merge's converter summary: upstream's fixed layout folded to the width, its blanks kept
// and the table's columns still under their headers.
TEST_CASE("fold_line and fold_table keep blanks and columns", "[terminal]") {
    using ptune::term::fold_line;
    using ptune::term::fold_table;
    std::string line =
        "  Per-task (all):  Avg Exec = 9.44 us,  Avg Latency = 10.56 us,  Exec/Latency = 89.39%";
    std::string folded = fold_line(line, 50, 4);
    CHECK(folded ==
          "  Per-task (all):  Avg Exec = 9.44 us,  Avg\n"
          "      Latency = 10.56 us,  Exec/Latency = 89.39%");
    CHECK(fold_line(line, 0, 4) == line);
    CHECK(fold_line("a " + std::string(30, 'x') + " b", 10, 2) ==
          "a\n  " + std::string(30, 'x') + "\n  b");
    std::vector<std::string> table = {
        "Func_ID  Func_Name    Count   Avg Exec(us)  Avg Tail OH(us)",
        "0        QK               2          10.00             0.40",
        "12       SF_long_name     4           5.35             0.30"};
    auto rows = fold_table(table, 45, 4);
    REQUIRE(rows.size() == 3);
    // Cut at the same column in every row, never inside `Avg Tail OH(us)`.
    CHECK(rows[0] == "Func_ID  Func_Name    Count   Avg Exec(us)\n     Avg Tail OH(us)");
    CHECK(rows[1] == "0        QK               2          10.00\n                0.40");
    for (const auto& row : rows) CHECK(widest(row) <= 45);
    // The continued number ends where its header does.
    auto header = lines_of(rows[0]), first = lines_of(rows[1]);
    CHECK(header[1].size() == first[1].size());
    CHECK(fold_table(table, 200, 4) == table);
}

TEST_CASE("a table of many number columns splits into groups", "[terminal][render]") {
    ptune::render::Table table;
    for (int c = 0; c < 14; ++c) {
        table.columns.push_back(c == 0 ? "kernel" : "column " + std::to_string(c));
        table.align.push_back(c == 0 ? ptune::render::Align::Left : ptune::render::Align::Right);
    }
    table.rows.push_back({});
    for (int c = 0; c < 14; ++c) table.rows[0].push_back(c == 0 ? "QK" : "12345.6");
    std::ostringstream out;
    ptune::render::write_text_table(table, out, 50);
    CHECK(widest(out.str()) <= 50);
    // Every group repeats the key column.
    std::size_t keys = 0;
    for (const auto& line : lines_of(out.str())) keys += line.rfind("QK", 0) == 0 ? 1 : 0;
    CHECK(keys > 1);
    CHECK(out.str().find("column 13") != std::string::npos);
}

TEST_CASE("findings wrap under their row", "[terminal][render]") {
    ptune::rules::Finding finding;
    finding.rule = "pmu.mte2-bound";
    finding.catalogue = "P2";
    finding.severity = ptune::rules::RuleSeverity::Warning;
    finding.subject = {"kernel", "SF"};
    finding.message = std::string(30, 'x') +
                      " is busy 77.7 % of the cycles, the bottleneck, and "
                      "this sentence goes on well past one hundred columns";
    finding.locations.push_back(
        {"examples/build_output/PagedAttn_20260715_103000/dfx_outputs/some/deeper/dir/pmu.csv", 2,
         0});
    finding.advice = std::string(200, 'a').replace(100, 1, " ");
    std::ostringstream out;
    ptune::render::write_text_findings(std::span(&finding, 1), out, false, 60);
    for (const auto& line : lines_of(out.str())) {
        bool one_token = line.find(' ', line.find_first_not_of(' ')) == std::string::npos;
        CHECK((display_width(line) <= 60 || one_token));
    }
    CHECK(out.str().rfind("[warning] pmu.mte2-bound (P2) kernel SF:", 0) == 0);
    CHECK(out.str().find("    at …/") != std::string::npos);
}

TEST_CASE("every guide reference names the tuning guide or a document in the repository",
          "[rules]") {
    auto catalogue = ptune::rules::Catalogue::builtin();
    REQUIRE(catalogue.ok());
    std::string repo = std::string(PTUNE_TEST_DATA) + "/../..";
    for (const auto& rule : catalogue->rules()) {
        INFO(rule.id << ": guide '" << rule.guide << "'");
        const std::string& guide = rule.guide;
        if (guide.empty() || guide == "extension" || guide.rfind("Part ", 0) == 0) continue;
        // Anything else cites one of our documents by its path: it must exist.
        REQUIRE(guide.rfind("docs/", 0) == 0);
        std::string file = guide.substr(0, guide.find(','));
        CHECK(std::ifstream(repo + "/" + file).good());
    }
}

// Every format prints `other` (rows made or viewed) exactly as `held`: the text table at several
// widths, with and without colour, then text, Markdown and CSV.
// A table of paths, words to wrap, invalid UTF-8, ESC and a short row.
static ptune::render::Table sample_table() {
    using ptune::render::Align;
    ptune::render::Table held;
    held.title = "cases";
    held.columns = {"case", "mean", "delta", "verdict", "source"};
    held.units = {"", "µs"};
    held.align = {Align::Left, Align::Right, Align::Right, Align::Left, Align::Left};
    held.rows = {{"models/a.py", "100.0", "+1.0%", "~", "logs/a/very/long/path/of/the/run.log:12"},
                 {"b \xff\xfe bad", "1.5 ± 0.1", "", "regressed", "x"},
                 {"c with a long name in several words to wrap", "12345.6", "-0.5%", "improved"},
                 {"d", "-", "-", "new", "\x1b[1mbold\x1b[0m é"},
                 {"geomean"}};
    return held;
}

static void check_renders_as_held(const ptune::render::Table& held,
                                  const ptune::render::Table& other) {
    for (std::size_t width : {0, 100, 60, 30}) {
        for (bool color : {false, true}) {
            std::ostringstream a, b;
            ptune::render::write_text_table(held, a, width, color);
            ptune::render::write_text_table(other, b, width, color);
            INFO(width << " " << color);
            CHECK(a.str() == b.str());
        }
    }
    ptune::render::Report held_report, other_report;
    held_report.tables = {held};
    other_report.tables = {other};
    for (const char* format : {"text", "markdown", "csv"}) {
        std::ostringstream a, b;
        auto renderer = ptune::render::make_standard_renderer(format);
        renderer->render(held_report, a, {true, 70});
        renderer->render(other_report, b, {true, 70});
        INFO(format);
        CHECK(a.str() == b.str());
    }
}

// bench-gate's 200,000-row table is made row by row while it is written (Table::make_row): every
// format prints it exactly as the same table held in Table::rows, wrapped, grouped, coloured,
// with invalid UTF-8 and with rows shorter than the header.
TEST_CASE("a table of made rows renders as the same table held", "[terminal][render]") {
    ptune::render::Table held = sample_table();
    held.styles = {{}, {"", "", "", "1;31"}, {"", "", "", "32"}};
    ptune::render::Table made = held;
    made.rows.clear();
    made.styles.clear();
    made.made_rows = held.rows.size();
    std::size_t calls = 0;
    made.make_row = [&](std::size_t row, std::vector<std::string>& cells,
                        std::vector<std::string>& styles) {
        ++calls;
        REQUIRE(cells.empty());
        REQUIRE(styles.empty());
        cells = held.rows[row];
        if (row < held.styles.size()) styles = held.styles[row];
    };
    CHECK(made.row_count() == held.rows.size());
    check_renders_as_held(held, made);
    CHECK(calls >= 2 * held.rows.size());  // measured, then written
}

// bench-summary's rows of a log of 100,000 cases are views of text kept elsewhere
// (Table::view_row): every format prints them exactly as the same table held (unstyled),
// wrapped, grouped, with invalid UTF-8, ESC, cells of every length around the 4- and 8-byte
// steps of the ASCII test, and rows shorter than the header.
TEST_CASE("a table of viewed rows renders as the same table held", "[terminal][render]") {
    ptune::render::Table held = sample_table();
    const std::string filler = "abcdefghijklmnopqrstu";
    for (std::size_t n = 0; n <= filler.size(); ++n) {
        for (char odd : {'\x1b', '\xc3'}) {  // ESC, or a lone UTF-8 lead byte, at each place
            for (std::size_t at = 0; at < n; at += 3) {
                std::string cell = filler.substr(0, n);
                cell[at] = odd;
                held.rows.push_back({cell, std::to_string(n), "-", filler.substr(0, n), cell});
            }
        }
    }
    ptune::render::Table viewed = held;
    viewed.rows.clear();
    viewed.made_rows = held.rows.size();
    std::size_t calls = 0;
    viewed.view_row = [&](std::size_t row, std::vector<std::string_view>& cells) {
        ++calls;
        REQUIRE(cells.empty());
        cells.assign(held.rows[row].begin(), held.rows[row].end());
    };
    CHECK(viewed.row_count() == held.rows.size());
    check_renders_as_held(held, viewed);
    CHECK(calls >= 2 * held.rows.size());  // measured, then written
}

TEST_CASE("a large text report renders its first table and the rest apart, the same bytes",
          "[terminal][render]") {
    // Past 20,000 rows in its first table, the text renderer renders what follows it in pieces
    // (tables a few thousand rows at a time, findings by the thousand) on two threads: the output
    // is that of the first table alone, a blank line, and the rest.
    using namespace ptune;
    for (bool with_notes : {true, false}) {
        for (bool color : {false, true}) {
            render::Report report;
            render::Table& summary = report.tables.emplace_back();
            summary.title = "summary";
            summary.columns = {"case", "mean"};
            for (int r = 0; r < 20001; ++r)
                summary.rows.push_back({"case_" + std::to_string(r), std::to_string(r * 7 % 1000)});
            for (int t = 0; t < 40; ++t) {  // several pieces of tables
                render::Table& ranks = report.tables.emplace_back();
                ranks.title = "case_" + std::to_string(t) + ": ranks";
                ranks.columns = {"rank", "mean"};
                for (int r = 0; r < 250; ++r)
                    ranks.rows.push_back({std::to_string(r), std::to_string(r * 13 % 97) + ".5"});
            }
            if (with_notes) report.notes = {"case_3: a note"};
            for (int f = 0; f < 2600; ++f) {  // three pieces; the advice changes within them
                rules::Finding& finding = report.findings.emplace_back();
                finding.rule = f % 700 < 350 ? "bench.tail" : "bench.spread";
                finding.title = "tail";
                finding.severity =
                    f % 3 == 0 ? rules::RuleSeverity::Warning : rules::RuleSeverity::Info;
                finding.message = "mean over median " + std::to_string(f);
                finding.subject = {"case", "case_" + std::to_string(f)};
                finding.advice = "look at the raw samples of rule " + finding.rule;
                finding.guide = "docs/bench-summary.md";
                finding.locations.push_back({"ci.log", static_cast<std::size_t>(f + 1), 0});
            }
            auto text = render::make_standard_renderer("text");
            REQUIRE(text);
            render::RenderOptions options;
            options.width = 100;
            options.color = color;
            std::ostringstream whole, first, rest;
            text->render(report, whole, options);
            render::Report head, tail = report;
            head.tables.push_back(report.tables.front());
            tail.tables.erase(tail.tables.begin());
            text->render(head, first, options);
            text->render(tail, rest, options);
            INFO("notes " << with_notes << ", color " << color);
            CHECK(whole.str() == first.str() + "\n" + rest.str());
            CHECK(whole.str().find("case_20000") != std::string::npos);
            CHECK(whole.str().find("case_39: ranks") != std::string::npos);
            CHECK(whole.str().find("mean over median 2599") != std::string::npos);
        }
    }
}

}  // namespace terminal_width_test
