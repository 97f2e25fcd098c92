#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "ptune/core/io.hpp"
#include "ptune/core/kernel_names.hpp"

namespace pmu_kernel_names_test {

using namespace ptune;

namespace {
std::string data(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/kernel-map/" + name;
}
}  // namespace

TEST_CASE("kernel_config.py KERNELS lines give func_id, name and core type", "[names]") {
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

TEST_CASE("name_map json gives the same map", "[names]") {
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

TEST_CASE("kernel name readers report bad entries and keep the good ones", "[names]") {
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
    auto map = parse_name_map(R"({"callable_id_to_name": {"0": "k0", "x": "bad", "3": 5}})",
                              "map.json", json_diagnostics);
    REQUIRE(map.ok());
    CHECK(map->entries().size() == 1);
    CHECK(json_diagnostics.items().size() == 2);
    CHECK_FALSE(parse_name_map("{\"level\": 2}", "map.json", json_diagnostics).ok());
    CHECK_FALSE(parse_name_map("{not json", "map.json", json_diagnostics).ok());
}

TEST_CASE("names are found next to pmu.csv or one folder up, never higher", "[names]") {
    namespace fs = std::filesystem;
    fs::path root = fs::temp_directory_path() / ("ptune-pmu-names-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "work" / "dfx_outputs" / "rank0" / "d0");
    std::ofstream(root / "work" / "kernel_config.py") << "KERNELS = []\n";
    std::ofstream(root / "work" / "dfx_outputs" / "pmu.csv") << "";
    std::ofstream(root / "work" / "dfx_outputs" / "rank0" / "d0" / "pmu.csv") << "";
    CHECK(find_kernel_names_near(root / "work" / "dfx_outputs" / "pmu.csv").preferred() ==
          root / "work" / "kernel_config.py");
    CHECK(find_kernel_names_near(root / "work" / "dfx_outputs" / "rank0" / "d0" / "pmu.csv")
              .preferred()
              .empty());
    std::ofstream(root / "work" / "dfx_outputs" / "name_map_work.json") << "{}";
    CHECK(find_kernel_names_near(root / "work" / "dfx_outputs" / "pmu.csv").preferred() ==
          root / "work" / "dfx_outputs" / "name_map_work.json");
    // Several name maps: none is used (which one belongs to the program is unknown), with a note;
    // kernel_config.py is then the names file, as in upstream's converter (swimlane.md §4.3).
    std::ofstream(root / "work" / "dfx_outputs" / "name_map_other.json") << "{}";
    auto several = find_kernel_names_near(root / "work" / "dfx_outputs" / "pmu.csv");
    CHECK(several.name_map.empty());
    CHECK(several.preferred() == root / "work" / "kernel_config.py");
    REQUIRE(several.notes.size() == 1);
    CHECK(several.notes[0].find("2 name_map*.json") != std::string::npos);
    fs::remove_all(root);
}

TEST_CASE("the kind of a names file is decided by content, never by its name", "[names]") {
    Diagnostics diagnostics;
    auto map = parse_kernel_names(
        "\xEF\xBB\xBF  {\"callable_id_to_name\": {\"4\": \"qk\"}, "
        "\"orchestrator_name\": \"PA\"}",
        "kernel_config.py", diagnostics);
    REQUIRE(map.ok());
    CHECK(map->display_name(4) == "qk");
    CHECK(map->orchestrator_name == "PA");
    auto config = parse_kernel_names("KERNELS = [\n\t{'name': 'sf', 'func_id': 1},\n]\n",
                                     "name_map_x.json", diagnostics);
    REQUIRE(config.ok());
    CHECK(config->display_name(1) == "sf");
    CHECK(diagnostics.empty());
}

TEST_CASE("kernel names contract: ids, empty maps, errors", "[names]") {
    Diagnostics diagnostics;
    // An empty name map is a valid map that names nothing.
    auto empty = parse_name_map("{\"callable_id_to_name\": {}}", "map.json", diagnostics);
    REQUIRE(empty.ok());
    CHECK(empty->empty());
    CHECK(empty->display_name(3) == "func_3");
    // Ids are upstream's uint32 func_ids; anything else has no entry and is reported.
    auto ids = parse_name_map(
        R"({"callable_id_to_name": {"-1": "neg", "4294967295": "top", "4294967296": "over"}})",
        "map.json", diagnostics);
    REQUIRE(ids.ok());
    CHECK(ids->entries().size() == 1);
    CHECK(ids->display_name(4294967295) == "top");
    CHECK(ids->find(-1) == nullptr);
    CHECK(diagnostics.items().size() == 2);
    // Parse errors carry the line.
    auto broken =
        parse_name_map("{\"callable_id_to_name\": {\n\n\"0\": [}}", "n.json", diagnostics);
    REQUIRE_FALSE(broken.ok());
    CHECK(broken.error().line == 3);
    CHECK(broken.error().file == "n.json");
}

TEST_CASE("one policy for names: named must be usable, found only warns", "[names]") {
    namespace fs = std::filesystem;
    fs::path root =
        fs::temp_directory_path() / ("ptune-names-policy-" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
    std::ofstream(root / "bad.json") << "{\"level\": 2}";
    std::ofstream(root / "good.py") << "KERNELS = [\n\t{\"func_id\": 0, \"name\": \"k\"},\n]\n";

    Diagnostics diagnostics;
    CHECK_FALSE(load_artifact_names(root / "bad.json", {}, true, diagnostics).ok());
    CHECK_FALSE(load_artifact_names(root / "missing.json", {}, true, diagnostics).ok());
    CHECK(diagnostics.empty());

    auto found_bad = load_artifact_names({}, root / "bad.json", true, diagnostics);
    REQUIRE(found_bad.ok());
    CHECK_FALSE(found_bad->has_value());
    REQUIRE(diagnostics.items().size() == 1);
    CHECK(diagnostics.items()[0].message.find("kernel names not used") != std::string::npos);

    auto relaxed = load_artifact_names(root / "bad.json", {}, false, diagnostics);
    REQUIRE(relaxed.ok());
    CHECK_FALSE(relaxed->has_value());

    // A named file replaces the found one.
    auto named = load_artifact_names(root / "good.py", root / "bad.json", true, diagnostics);
    REQUIRE(named.ok());
    REQUIRE(named->has_value());
    CHECK((*named)->display_name(0) == "k");
    auto none = load_artifact_names({}, {}, true, diagnostics);
    REQUIRE(none.ok());
    CHECK_FALSE(none->has_value());
    fs::remove_all(root);
}

}  // namespace pmu_kernel_names_test
