#pragma once
// What the hints tests share: the fixture folder and the built-in catalogue.

#include <string>

#include <catch2/catch.hpp>

#include "ptune/rules/engine.hpp"

namespace hints_test {

inline std::string data_path(const std::string& name) {
    return std::string(PTUNE_TEST_DATA) + "/hints/" + name;
}

inline const ptune::rules::Catalogue& catalogue() {
    static const ptune::rules::Catalogue builtin = [] {
        auto loaded = ptune::rules::Catalogue::builtin();
        REQUIRE(loaded.ok());
        return *loaded;
    }();
    return builtin;
}

}  // namespace hints_test
