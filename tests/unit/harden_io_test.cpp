// Output safety, special files, byte order marks, counted diagnostics and checked sums: the
// core machinery behind docs/RELIABILITY.md "Hostile situations".

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ptune/core/checked.hpp"
#include "ptune/core/diagnostics.hpp"
#include "ptune/core/io.hpp"
#include "ptune/render/json_stream.hpp"
#include "ptune/render/report.hpp"

namespace harden_io_test {

using namespace ptune;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
    fs::path dir =
        fs::temp_directory_path() / ("ptune-harden-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void write(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("two outputs on one file and an output over an input are refused", "[io][harden]") {
    fs::path dir = scratch("outputs");
    write(dir / "in.log", "x\n");
    fs::create_hard_link(dir / "in.log", dir / "hard.log");
    fs::create_symlink(dir / "in.log", dir / "soft.log");
    const std::string in = (dir / "in.log").string();
    CHECK(io::check_outputs({(dir / "out.json").string()}, {in}).ok());
    for (const char* name : {"in.log", "hard.log", "soft.log"}) {
        auto refused = io::check_outputs({(dir / name).string()}, {in});
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().message.find("refusing to write the output over the input") !=
              std::string::npos);
    }
    // Not existing yet: compared by spelling.
    auto twice =
        io::check_outputs({(dir / "a.json").string(), (dir / "." / "a.json").string()}, {});
    REQUIRE_FALSE(twice.ok());
    CHECK(twice.error().message.find("same file") != std::string::npos);
    CHECK(io::check_outputs({"-", "-"}, {}).ok());
    fs::remove_all(dir);
}

TEST_CASE("a protected output is never read, and a file read is never an output", "[io][harden]") {
    fs::path dir = scratch("ledger");
    write(dir / "artifact.log", "artifact\n");
    write(dir / "other.log", "other\n");
    const std::string artifact = (dir / "artifact.log").string();
    io::protect_outputs({artifact});
    auto refused = io::read_file(artifact);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("refusing") != std::string::npos);
    CHECK_FALSE(io::open_input(artifact).ok());
    // The refused read also blocks the output itself.
    CHECK_FALSE(io::AtomicOutput::open(artifact).ok());
    // A file read after arming cannot be written, whatever the spelling.
    REQUIRE(io::read_file((dir / "other.log").string()).ok());
    CHECK_FALSE(io::AtomicOutput::open((dir / "." / "other.log").string()).ok());
    io::reset_output_safety();
    CHECK(io::read_file(artifact).ok());
    CHECK(io::AtomicOutput::open((dir / "other.log").string()).ok());
    fs::remove_all(dir);
}

TEST_CASE("FIFOs and devices are refused without being opened", "[io][harden]") {
    fs::path dir = scratch("special");
    const std::string fifo = (dir / "fifo").string();
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // Opening the FIFO would block this test forever: the check comes first.
    auto read = io::read_file(fifo);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().message.find("FIFO") != std::string::npos);
    CHECK_FALSE(io::open_input(fifo).ok());
    auto zero = io::open_input("/dev/zero");
    REQUIRE_FALSE(zero.ok());
    CHECK(zero.error().message.find("character device") != std::string::npos);
    CHECK_FALSE(io::check_regular_file(fifo).ok());
    fs::remove_all(dir);
}

TEST_CASE("a file over the limit is refused by its size", "[io][harden]") {
    fs::path dir = scratch("size");
    write(dir / "big.json", std::string(4096, ' '));
    auto refused = io::read_file((dir / "big.json").string(), 1024);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("larger than 1024 bytes") != std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("symlink outputs are written through, dangling ones too", "[io][harden]") {
    fs::path dir = scratch("symlink");
    write(dir / "target.txt", "old");
    fs::create_symlink("target.txt", dir / "link.txt");
    fs::create_symlink(dir / "later.txt", dir / "dangling.txt");
    for (const char* name : {"link.txt", "dangling.txt"}) {
        auto out = io::AtomicOutput::open((dir / name).string());
        REQUIRE(out.ok());
        (*out)->stream() << "new";
        REQUIRE((*out)->commit().ok());
        CHECK(fs::is_symlink(dir / name));
    }
    CHECK(*io::read_file((dir / "target.txt").string()) == "new");
    CHECK(*io::read_file((dir / "later.txt").string()) == "new");
    fs::remove_all(dir);
}

TEST_CASE("an output name of 255 bytes gets a temporary name that fits", "[io][harden]") {
    fs::path dir = scratch("namemax");
    const fs::path target = dir / std::string(255, 'n');
    auto out = io::AtomicOutput::open(target.string());
    REQUIRE(out.ok());
    (*out)->stream() << "whole";
    REQUIRE((*out)->commit().ok());
    CHECK(*io::read_file(target.string()) == "whole");
    fs::remove_all(dir);
}

TEST_CASE("a replaced output is swapped in whole; a target turned directory is left alone",
          "[io][harden]") {
    fs::path dir = scratch("replace");
    auto leftovers = [&] {
        int count = 0;
        for (const auto& entry : fs::directory_iterator(dir))
            count += entry.path().filename().string().find("ptune-tmp") != std::string::npos;
        return count;
    };
    write(dir / "out.txt", "old, and longer than the new content");
    fs::create_hard_link(dir / "out.txt", dir / "old-link.txt");
    {
        auto out = io::AtomicOutput::open((dir / "out.txt").string());
        REQUIRE(out.ok());
        (*out)->stream() << "new";
        REQUIRE((*out)->commit().ok());
    }
    CHECK(*io::read_file((dir / "out.txt").string()) == "new");
    CHECK(*io::read_file((dir / "old-link.txt").string()) ==
          "old, and longer than the new content");
    CHECK(leftovers() == 0);

    // The file became a directory between open and commit: the commit fails as a rename onto
    // a directory does, and the directory is neither swapped out nor removed.
    {
        auto out = io::AtomicOutput::open((dir / "out.txt").string());
        REQUIRE(out.ok());
        (*out)->stream() << "newer";
        fs::remove(dir / "out.txt");
        fs::create_directory(dir / "out.txt");
        write(dir / "out.txt" / "kept.txt", "kept");
        auto status = (*out)->commit();
        REQUIRE_FALSE(status.ok());
        CHECK(status.error().message.find("cannot move the result into place") !=
              std::string::npos);
    }
    CHECK(*io::read_file((dir / "out.txt" / "kept.txt").string()) == "kept");
    CHECK(leftovers() == 0);
    fs::remove_all(dir);
}

TEST_CASE("a large output's blocks are reserved ahead of its writes and the rest given back",
          "[io][harden]") {
    fs::path dir = scratch("reserve");
    // Only where the filesystem reserves blocks past the end of a file (ext4, xfs, tmpfs).
    bool can_reserve = false;
    {
        const std::string probe = (dir / "probe").string();
        const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
        REQUIRE(fd >= 0);
        can_reserve = ::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 1 << 20) == 0;
        ::close(fd);
        fs::remove(probe);
    }
    auto allocated = [](const fs::path& path) {
        struct stat info {};
        REQUIRE(::stat(path.c_str(), &info) == 0);
        return std::pair<std::uint64_t, std::uint64_t>{
            static_cast<std::uint64_t>(info.st_size),
            static_cast<std::uint64_t>(info.st_blocks) * 512};
    };
    const std::string piece(64 * 1024 + 1, 'x');
    const std::size_t pieces = 80;  // 5 MiB and a bit
    auto out = io::AtomicOutput::open((dir / "big.json").string());
    REQUIRE(out.ok());
    for (std::size_t i = 0; i < pieces; ++i) {
        (*out)->stream() << piece;
        if (i != 31) continue;
        // Past 2 MiB: the temporary file holds what was written and its blocks reach beyond.
        (*out)->stream().flush();
        fs::path temp;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.path().filename().string().find("ptune-tmp") != std::string::npos)
                temp = entry.path();
        REQUIRE_FALSE(temp.empty());
        auto [size, blocks] = allocated(temp);
        CHECK(size == 32 * piece.size());
        if (can_reserve)
            CHECK(blocks >= size + (1u << 20));
        else
            WARN("this filesystem reserves no blocks ahead (fallocate): that part is unchecked");
    }
    REQUIRE((*out)->commit().ok());
    auto [size, blocks] = allocated(dir / "big.json");
    CHECK(size == pieces * piece.size());
    // The reservation went to 8 MiB; what the file does not use is given back.
    CHECK(blocks < size + (256u << 10));
    CHECK(*io::read_file((dir / "big.json").string()) == [&] {
        std::string all;
        for (std::size_t i = 0; i < pieces; ++i) all += piece;
        return all;
    }());
    fs::remove_all(dir);
}

TEST_CASE("a full device fails the commit with the path and the reason", "[io][harden]") {
    auto out = io::AtomicOutput::open("/dev/full");
    REQUIRE(out.ok());
    (*out)->stream() << std::string(1 << 20, 'x');
    auto status = (*out)->commit();
    REQUIRE_FALSE(status.ok());
    CHECK(status.error().file == "/dev/full");
    CHECK(status.error().message.find("no space left on device") != std::string::npos);
}

TEST_CASE("a byte order mark never reaches a parser", "[io][harden]") {
    const std::string text = "\xEF\xBB\xBF::group::a\nsecond\n";
    io::LineReader from_text(text);
    std::string_view line;
    REQUIRE(from_text.next(line));
    CHECK(line == "::group::a");
    std::istringstream stream(text);
    io::LineReader from_stream(stream);
    REQUIRE(from_stream.next(line));
    CHECK(line == "::group::a");
    REQUIRE(from_stream.next(line));
    CHECK(line == "second");  // only line 1 loses its mark

    fs::path dir = scratch("bom");
    write(dir / "a.json", "\xEF\xBB\xBF{}");
    CHECK(*io::read_file((dir / "a.json").string()) == "{}");
    fs::remove_all(dir);
}

TEST_CASE("UTF-16 text is refused at its first line with what to do, by both ways of reading",
          "[io][harden]") {
    fs::path dir = scratch("utf16");
    // "::group::a\n" as Windows PowerShell's `>` writes it (UTF-16LE after a mark), and big-endian
    const std::string little{"\xFF\xFE:\0:\0g\0r\0o\0u\0p\0:\0:\0a\0\n\0", 24};
    const std::string big{"\xFE\xFF\0:\0:\0g\0r\0o\0u\0p\0:\0:\0a\0\n", 24};
    for (const auto& [name, bytes] : {std::pair{"le.log", little}, std::pair{"be.log", big}}) {
        const std::string path = (dir / name).string();
        write(dir / name, bytes);
        auto whole = io::read_file(path);
        REQUIRE_FALSE(whole);
        CHECK(whole.error().code == ExitCode::InputError);
        CHECK(whole.error().file == path);
        CHECK(whole.error().line == 1);
        CHECK(whole.error().message.find("UTF-16 text") == 0);
        CHECK(whole.error().message.find("iconv -f UTF-16 -t UTF-8") != std::string::npos);
        auto streamed = io::open_input(path);
        REQUIRE_FALSE(streamed);
        CHECK(streamed.error().line == 1);
        CHECK(streamed.error().message == whole.error().message);
    }
    // A file starting with one of the two bytes only is read as it is, from its first byte.
    write(dir / "ff.log", "\xFF:a\n");
    CHECK(*io::read_file((dir / "ff.log").string()) == "\xFF:a\n");
    auto opened = io::open_input((dir / "ff.log").string());
    REQUIRE(opened);
    io::LineReader reader(opened->stream());
    std::string_view line;
    REQUIRE(reader.next(line));
    CHECK(line == "\xFF:a");
    fs::remove_all(dir);
}

TEST_CASE("LineReader says when the input ends without a newline", "[io][harden]") {
    std::string_view line;
    io::LineReader cut("a\nb");
    REQUIRE(cut.next(line));
    CHECK_FALSE(cut.unterminated());
    REQUIRE(cut.next(line));
    CHECK(cut.unterminated());
    std::istringstream whole("a\nb\n");
    io::LineReader reader(whole);
    while (reader.next(line)) CHECK_FALSE(reader.unterminated());
}

TEST_CASE("diagnostics past the cap are counted, not kept", "[diagnostics][harden]") {
    Diagnostics diagnostics;
    const std::size_t total = Diagnostics::kKeptPerKind + 500;
    for (std::size_t i = 0; i < total; ++i) diagnostics.warn("bad.csv", i + 1, "bad row");
    diagnostics.warn("other.csv", 1, "bad row");
    CHECK(diagnostics.items().size() == Diagnostics::kKeptPerKind + 1);
    CHECK(diagnostics.count(Severity::Warning) == total + 1);
    REQUIRE(diagnostics.dropped().size() == 1);
    CHECK(diagnostics.dropped().begin()->second == 500);
    Diagnostics merged;
    merged.append(diagnostics);
    CHECK(merged.count(Severity::Warning) == total + 1);
    CHECK(merged.items().size() == Diagnostics::kKeptPerKind + 1);
}

TEST_CASE("checked sums saturate and say so", "[core][harden]") {
    std::uint64_t sum = std::numeric_limits<std::uint64_t>::max() - 10;
    CHECK(checked::add(sum, std::uint64_t{10}));
    CHECK(sum == std::numeric_limits<std::uint64_t>::max());
    CHECK_FALSE(checked::add(sum, std::uint64_t{1}));
    CHECK(sum == std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("a streamed JSON array gives the bytes of the DOM", "[render][harden]") {
    nlohmann::json envelope = {{"alpha", 1}, {"zeta", {{"k", "v"}}}, {"name", "x\x01y"}};
    for (std::size_t count : {0u, 1u, 3u}) {
        auto element = [](std::size_t i) {
            return nlohmann::json{{"case", "c" + std::to_string(i)}, {"values", {1, 2}}};
        };
        nlohmann::json whole = envelope;
        whole["cases"] = nlohmann::json::array();
        for (std::size_t i = 0; i < count; ++i) whole["cases"].push_back(element(i));
        std::ostringstream expected, streamed;
        render::write_json(whole, expected);
        render::write_json_with_arrays(envelope, {{"cases", count, element}}, streamed);
        CHECK(streamed.str() == expected.str());
    }
}

}  // namespace harden_io_test
