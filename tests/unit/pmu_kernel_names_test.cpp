#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "ptune/core/io.hpp"
#include "ptune/pmu/kernel_names.hpp"

using namespace ptune;
using namespace ptune::pmu;

namespace {
std::string data(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/kernel-map/" + name;
}
}  // namespace

TEST_CASE("kernel_config.py KERNELS lines give func_id, name and core type", "[pmu][names]") {
    Diagnostics diagnostics;
    auto names =
        load_kernel_names(data("composed__kernel_config_KERNELS_excerpt.txt"), diagnostics);
    REQUIRE(names.ok());
    CHECK(diagnostics.empty());
    REQUIRE(names->entries().size() == 4);
    CHECK(names->display_name(0) == "rms_norm_aiv");
    CHECK(names->display_name(1) == "qkv_proj_aic");
    CHECK(names->find(1)->core_type == "aic");
    CHECK(names->display_name(2) == "qkv_proj_aiv");
    CHECK(names->find(3)->core_type == "aiv");
    CHECK(names->display_name(7) == "func_7");
    CHECK(names->find(7) == nullptr);
}

TEST_CASE("name_map json gives the same map", "[pmu][names]") {
    Diagnostics diagnostics;
    auto from_json = load_kernel_names(data("composed__name_map.json"), diagnostics);
    auto from_py =
        load_kernel_names(data("composed__kernel_config_KERNELS_excerpt.txt"), diagnostics);
    REQUIRE(from_json.ok());
    REQUIRE(from_py.ok());
    REQUIRE(from_json->entries().size() == from_py->entries().size());
    for (const auto& [id, info] : from_py->entries())
        CHECK(from_json->display_name(id) == info.name);
}

TEST_CASE("kernel name readers report bad entries and keep the good ones", "[pmu][names]") {
    Diagnostics diagnostics;
    auto names = parse_kernel_config(
        "KERNELS = [\n"
        "\t{\"func_id\": 0, \"name\": \"a_aiv\"},\n"
        "\t{\"func_id\": x, \"name\": \"broken\"},\n"
        "\t{\"func_id\": 2,   \"name\":\"b_aic\", \"core_type\": \"aic\"},\n"
        "]\n",
        "kc.py", diagnostics);
    REQUIRE(names.ok());
    CHECK(names->entries().size() == 2);
    CHECK(names->display_name(2) == "b_aic");
    REQUIRE(diagnostics.items().size() == 1);
    CHECK(diagnostics.items()[0].line == 3);

    CHECK_FALSE(parse_kernel_config("print('hello')\n", "empty.py", diagnostics).ok());

    Diagnostics json_diagnostics;
    auto map = parse_name_map_json(R"({"callable_id_to_name": {"0": "k0", "x": "bad", "3": 5}})",
                                   "map.json", json_diagnostics);
    REQUIRE(map.ok());
    CHECK(map->entries().size() == 1);
    CHECK(json_diagnostics.items().size() == 2);
    CHECK_FALSE(parse_name_map_json("{\"level\": 2}", "map.json", json_diagnostics).ok());
    CHECK_FALSE(parse_name_map_json("{not json", "map.json", json_diagnostics).ok());
}

TEST_CASE("names are found next to pmu.csv or one folder up, never higher", "[pmu][names]") {
    namespace fs = std::filesystem;
    fs::path root = fs::temp_directory_path() / ("ptune-pmu-names-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "work" / "dfx_outputs" / "rank0" / "d0");
    std::ofstream(root / "work" / "kernel_config.py") << "KERNELS = []\n";
    std::ofstream(root / "work" / "dfx_outputs" / "pmu.csv") << "";
    std::ofstream(root / "work" / "dfx_outputs" / "rank0" / "d0" / "pmu.csv") << "";
    CHECK(find_kernel_names(root / "work" / "dfx_outputs" / "pmu.csv") ==
          root / "work" / "kernel_config.py");
    CHECK_FALSE(
        find_kernel_names(root / "work" / "dfx_outputs" / "rank0" / "d0" / "pmu.csv").has_value());
    std::ofstream(root / "work" / "dfx_outputs" / "name_map_work.json") << "{}";
    CHECK(find_kernel_names(root / "work" / "dfx_outputs" / "pmu.csv") ==
          root / "work" / "dfx_outputs" / "name_map_work.json");
    fs::remove_all(root);
}
