// The cube tile budget model against the worked examples of fixtures/tile-model (every
// intermediate value), and the 2x growth a report alone supports.

#include <catch2/catch.hpp>

#include <fstream>

#include "ptune/core/text.hpp"
#include "ptune/memreport/backend.hpp"
#include "ptune/memreport/tile_model.hpp"

namespace memreport_tile_model_test {

using namespace ptune;
using namespace ptune::memreport;

namespace {

std::optional<std::uint64_t> optional_cell(std::string_view cell) {
    if (cell.empty()) return std::nullopt;
    return text::parse_uint(cell);
}

}  // namespace

TEST_CASE("the budget model reproduces every worked example", "[memreport][tile-model]") {
    std::ifstream in(std::string(PTUNE_TEST_DATA) +
                     "/memreport/composed__tile_budget_worked_examples.tsv");
    REQUIRE(in);
    std::string line;
    std::vector<std::string> columns;
    int cases = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        auto cells = text::split(line, '\t');
        if (columns.empty()) {
            columns.assign(cells.begin(), cells.end());
            continue;
        }
        REQUIRE(cells.size() == columns.size());
        auto cell = [&](std::string_view name) {
            auto it = std::find(columns.begin(), columns.end(), name);
            REQUIRE(it != columns.end());
            return cells[static_cast<std::size_t>(it - columns.begin())];
        };
        auto number = [&](std::string_view name) { return *text::parse_uint(cell(name)); };
        INFO(std::string(cell("case")));
        Backend backend = *parse_backend_name(cell("platform"));
        CubeTile tile{number("M"),         number("N"),       number("K"),     number("bytes_in"),
                      number("bytes_out"), number("weights"), number("accum"), number("dbuf")};
        CubeBudget budget = cube_budget(tile, *capacity(backend, "Mat"), *capacity(backend, "Acc"));
        CHECK(*capacity(backend, "Acc") == number("acc_budget"));
        CHECK(*capacity(backend, "Mat") == number("mat_budget"));
        CHECK(budget.acc_bytes == number("acc_bytes"));
        CHECK(to_string(budget.acc_verdict) == cell("acc_verdict"));
        CHECK(budget.mat_bytes == number("mat_bytes"));
        CHECK(budget.mat_weight_bytes == number("mat_weight_bytes"));
        CHECK(budget.mat_act_bytes == number("mat_act_bytes"));
        CHECK(to_string(budget.mat_verdict) == cell("mat_verdict"));
        CHECK(budget.contig_bytes == number("contig_bytes"));
        CHECK(budget.cacheline_ok == (cell("cacheline_ok") == "True"));
        CHECK(budget.n_fit == optional_cell(cell("n_fit")));
        CHECK(budget.k_multiple_elems == optional_cell(cell("k_multiple_elems")));
        CHECK(budget.k_fit == optional_cell(cell("k_fit")));
        CHECK(budget.n_room_mat == optional_cell(cell("n_room_mat")));
        CHECK(budget.n_room_acc == optional_cell(cell("n_room_acc")));
        CHECK(budget.n_growth_limit == optional_cell(cell("n_growth_limit")));
        ++cases;
    }
    CHECK(cases == 8);
}

TEST_CASE("a report's Mat/Acc fill says whether doubling K fits", "[memreport][tile-model]") {
    // kv_proj_matmul of the guide: Mat 80 KB of 512 KB, Acc 4 KB of 128 KB.
    auto growth = suggest_growth(81920, 524288, 4096, 131072);
    REQUIRE(growth);
    CHECK(growth->mat_pct_after_k == Approx(31.25));
    CHECK(growth->acc_pct_after_n == Approx(6.25));
    CHECK(growth->acc_verdict_after_n == Verdict::Fit);
    // 42 % doubled is 84 % (fit); 43 % doubled is 86 % (MARGINAL): no suggestion.
    CHECK(suggest_growth(42, 100, 1, 100));
    CHECK_FALSE(suggest_growth(43, 100, 1, 100));
    // qkv_proj_aic: Mat 62.5 % doubled is OVER; nothing to suggest.
    CHECK_FALSE(suggest_growth(327680, 524288, 65536, 131072));
    // Room for K, but doubling N would put Acc over: say so.
    auto acc_bound = suggest_growth(81920, 524288, 98304, 131072);
    REQUIRE(acc_bound);
    CHECK(acc_bound->acc_verdict_after_n == Verdict::Over);
}

}  // namespace memreport_tile_model_test
