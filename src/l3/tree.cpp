// The L3 tree (see tree.hpp): rank<N>/d<K>/ directories, dispatch_identity.json sidecars
// (upstream-2026-09.md §1.14) and the pairing of one dispatch across ranks. Damage is a gap,
// said once; only a tree without ranks or a selection matching nothing fails.

#include "ptune/l3/tree.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "ptune/core/discover.hpp"
#include "ptune/core/io.hpp"
#include "ptune/core/json_document.hpp"
#include "ptune/core/text.hpp"
#include "ptune/swimlane/discover.hpp"

namespace ptune::l3 {

namespace fs = std::filesystem;

namespace {

Error input_error(std::string message, std::string file = "") {
    return Error{std::move(message), std::move(file), 0, ExitCode::InputError};
}

using io::is_dir;
using io::is_file;

/// "rank3" → 3, "d12" → 12 (digits only after the prefix).
std::optional<int> numbered(std::string_view name, std::string_view prefix) {
    if (!name.starts_with(prefix) || name.size() == prefix.size() ||
        name.size() > prefix.size() + 9)
        return std::nullopt;
    std::string_view digits = name.substr(prefix.size());
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    return static_cast<int>(*text::parse_int(digits));
}

std::vector<fs::path> sorted_children(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec)) out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
}

/// Children in the order a duplicate id is resolved: the canonical name (`rank1`) before a
/// padded one (`rank01`), else by name.
std::vector<fs::path> canonical_first(const fs::path& dir, std::string_view prefix) {
    std::vector<fs::path> children = sorted_children(dir);
    auto padded = [&](const fs::path& p) {
        std::string name = p.filename().string();
        return name.size() > prefix.size() + 1 && name.starts_with(prefix) &&
               name[prefix.size()] == '0';
    };
    std::stable_partition(children.begin(), children.end(),
                          [&](const fs::path& p) { return !padded(p); });
    return children;
}

bool has_rank_dirs(const fs::path& dir) {
    for (const fs::path& child : sorted_children(dir))
        if (numbered(child.filename().string(), "rank")) return true;
    return false;
}

/// An integer field (a bool or a float is not one).
Result<std::int64_t> int_field(const nlohmann::json& doc, const char* name,
                               const std::string& source) {
    auto it = doc.find(name);
    if (it == doc.end() || !it->is_number_integer())
        return input_error(fmt::format("dispatch identity {} must be an integer", name), source);
    return it->get<std::int64_t>();
}

std::string rank_list(const std::vector<int>& ranks) {
    std::vector<std::string> names;
    for (int r : ranks) names.push_back(fmt::format("rank{}", r));
    if (names.size() > 8) {
        std::size_t more = names.size() - 6;
        names.resize(6);
        names.push_back(fmt::format("… ({} more)", more));
    }
    return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

Result<DispatchIdentity> parse_dispatch_identity(std::string_view text, const std::string& source,
                                                 int rank, int dispatch) {
    auto parsed = json_document::parse(text, source);
    if (!parsed) return parsed.error();
    const nlohmann::json& doc = *parsed;
    if (!doc.is_object()) return input_error("dispatch identity is not a JSON object", source);
    auto version = doc.find("schema_version");
    if (version == doc.end() || !version->is_number_integer() || version->get<std::int64_t>() != 1)
        return input_error("unsupported dispatch identity schema (schema_version must be 1)",
                           source);
    DispatchIdentity id;
    std::pair<const char*, std::int64_t*> fields[] = {
        {"run_id", &id.run_id},
        {"task_slot", &id.task_slot},
        {"group_index", &id.group_index},
        {"group_size", &id.group_size},
        {"chip_rank", &id.chip_rank},
        {"local_capture_index", &id.local_capture_index},
        {"endpoint_dispatch_id", &id.endpoint_dispatch_id},
        {"pipeline_slot", &id.pipeline_slot},
        {"pipeline_generation", &id.pipeline_generation}};
    for (auto& [name, target] : fields) {
        auto value = int_field(doc, name, source);
        if (!value) return value.error();
        *target = *value;
    }
    if (id.run_id <= 0 || id.task_slot < 0)
        return input_error(
            "dispatch identity has an invalid parent key (run_id > 0, task_slot ≥ 0)", source);
    if (id.endpoint_dispatch_id <= 0 || id.pipeline_slot < 0 || id.pipeline_generation <= 0)
        return input_error("dispatch identity has invalid endpoint diagnostics", source);
    if (id.group_size < 1 || id.group_index < 0 || id.group_index >= id.group_size)
        return input_error("dispatch identity has an invalid group membership", source);
    if (auto pid = doc.find("host_pid"); pid != doc.end()) {
        if (!pid->is_number_integer() || pid->get<std::int64_t>() <= 0)
            return input_error("dispatch identity host_pid must be a positive integer", source);
        id.host_pid = pid->get<std::int64_t>();
    }
    auto digest = doc.find("callable_digest");
    if (digest == doc.end() || !digest->is_string() || digest->get<std::string>().size() != 64 ||
        !std::all_of(digest->get_ref<const std::string&>().begin(),
                     digest->get_ref<const std::string&>().end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
        return input_error("dispatch identity has an invalid callable digest", source);
    id.callable_digest = digest->get<std::string>();
    if (rank < 0 || dispatch < 0)
        return input_error("dispatch identity is not below rankN/dN", source);
    if (id.chip_rank != rank || id.local_capture_index != dispatch)
        return input_error(fmt::format("dispatch identity (chip_rank {}, local_capture_index {}) "
                                       "disagrees with its rank{}/d{} path",
                                       id.chip_rank, id.local_capture_index, rank, dispatch),
                           source);
    return id;
}

std::vector<const RankCapture*> Tree::of(std::string_view key) const {
    std::vector<const RankCapture*> out;
    for (const RankCapture& c : captures)
        if (c.key == key) out.push_back(&c);
    return out;
}

Result<int> parse_dispatch(std::string_view text) {
    std::string_view digits = text.starts_with('d') ? text.substr(1) : text;
    if (auto n = numbered(fmt::format("d{}", digits), "d")) return *n;
    return input_error(fmt::format("--dispatch must be dN (for example, d0), not '{}'", text));
}

Result<std::pair<std::int64_t, std::int64_t>> parse_dispatch_id(std::string_view text) {
    auto colon = text.find(':');
    std::optional<std::int64_t> run, slot;
    if (colon != std::string_view::npos) {
        run = text::parse_int(text.substr(0, colon));
        slot = text::parse_int(text.substr(colon + 1));
    }
    if (!run || !slot || *run <= 0 || *slot < 0)
        return input_error(fmt::format(
            "--dispatch-id must be RUN_ID:TASK_SLOT (for example, 1:0), not '{}'", text));
    return std::pair(*run, *slot);
}

std::optional<fs::path> find_root(const fs::path& input, std::string* note) {
    if (!is_dir(input)) return std::nullopt;
    for (const fs::path& candidate : {input, input / "dfx_outputs"})
        if (is_dir(candidate) && has_rank_dirs(candidate)) return candidate;
    std::string chosen;
    auto run = discover::resolve_run(input, "", 1, &chosen);
    if (run && *run != input) {
        for (const fs::path& candidate : {*run, *run / "dfx_outputs"})
            if (is_dir(candidate) && has_rank_dirs(candidate)) {
                if (note) *note = chosen;
                return candidate;
            }
    }
    return std::nullopt;
}

namespace {

/// Every rank<N>/d<K>/ directory with something to read; the rest are gaps.
std::vector<RankCapture> enumerate(const fs::path& root, std::vector<std::string>& gaps,
                                   std::set<int>& all_ranks,
                                   std::set<std::pair<int, int>>& left_out,
                                   std::set<int>& empty_ranks) {
    std::vector<RankCapture> captures;
    // Gaps name paths below the root; the diagnostic that carries them names the root.
    auto rel = [&](const fs::path& p) { return p.lexically_relative(root).string(); };
    std::map<int, std::string> rank_dir_of;
    for (const fs::path& rank_dir : canonical_first(root, "rank")) {
        std::string name = rank_dir.filename().string();
        if (!name.starts_with("rank")) continue;
        auto rank = numbered(name, "rank");
        if (!rank) {
            gaps.push_back(
                fmt::format("{}: odd directory name, not rank<N>; skipped", rel(rank_dir)));
            continue;
        }
        auto [it, inserted] = rank_dir_of.try_emplace(*rank, name);
        if (!inserted) {
            gaps.push_back(
                fmt::format("{}: names rank {} again (as {} does); duplicate rank id "
                            "left out",
                            rel(rank_dir), *rank, it->second));
            continue;
        }
        all_ranks.insert(*rank);
        std::map<int, std::string> d_of;
        std::size_t found = 0;
        for (const fs::path& d_dir : canonical_first(rank_dir, "d")) {
            std::string d_name = d_dir.filename().string();
            auto dispatch = numbered(d_name, "d");
            if (!dispatch) {
                gaps.push_back(
                    fmt::format("{}: odd directory name, not d<K>; skipped", rel(d_dir)));
                continue;
            }
            if (auto [d_it, d_new] = d_of.try_emplace(*dispatch, d_name); !d_new) {
                gaps.push_back(fmt::format("{}: names d{} again (as {} does); left out", rel(d_dir),
                                           *dispatch, d_it->second));
                continue;
            }
            ++found;
            RankCapture capture;
            capture.rank = *rank;
            capture.dispatch = *dispatch;
            capture.label = fmt::format("rank{}/d{}", *rank, *dispatch);
            capture.dir = d_dir;
            if (auto discovered = swimlane::discover_captures(d_dir);
                discovered && discovered->captures.size() == 1 &&
                discovered->captures.front().records.parent_path() == d_dir)
                capture.records = discovered->captures.front().records;
            // Any kind but a directory: a FIFO or device there is named by the reader, not
            // taken for a missing pmu.csv.
            if (std::error_code ec;
                fs::exists(d_dir / "pmu.csv", ec) && !io::is_dir(d_dir / "pmu.csv"))
                capture.pmu = d_dir / "pmu.csv";
            if (capture.records.empty() && capture.pmu.empty()) {
                // A FIFO or device in a capture's place is there, but no file to read.
                std::string why = "no chip_swimlane_records.json or pmu.csv";
                for (const char* name : {"chip_swimlane_records.json", "pmu.csv"})
                    if (auto status = io::check_regular_file((d_dir / name).string());
                        !status && io::is_special(d_dir / name))
                        why = fmt::format("{}: {}", name, status.error().message);
                gaps.push_back(fmt::format("{}: {}; rank{} is left out of d{}", rel(d_dir), why,
                                           *rank, *dispatch));
                left_out.emplace(*rank, *dispatch);
                continue;
            }
            if (fs::path program = d_dir / "dispatch_program.json"; is_file(program)) {
                auto text = io::read_file(program.string(), 1 << 20);
                auto name = text ? parse_dispatch_program(*text, program.string())
                                 : Result<std::string>(text.error());
                if (name)
                    capture.program = *name;
                else
                    gaps.push_back(name.error().to_string());
            }
            fs::path sidecar = d_dir / "dispatch_identity.json";
            if (io::is_special(sidecar)) {
                capture.sidecar_unusable = true;
                gaps.push_back(fmt::format("{}: {}; paired by d{} instead", rel(sidecar),
                                           io::check_regular_file(sidecar.string()).error().message,
                                           *dispatch));
            } else if (is_file(sidecar)) {
                auto text = io::read_file(sidecar.string(), 1 << 20);
                auto identity =
                    text ? parse_dispatch_identity(*text, sidecar.string(), *rank, *dispatch)
                         : Result<DispatchIdentity>(text.error());
                if (identity)
                    capture.identity = *identity;
                else
                    capture.sidecar_unusable = true;
                if (!identity)
                    gaps.push_back(fmt::format("{}; paired by d{} instead",
                                               identity.error().to_string(), *dispatch));
            }
            captures.push_back(std::move(capture));
        }
        if (found == 0) empty_ranks.insert(*rank);
        std::error_code listing;
        fs::directory_iterator probe(rank_dir, listing);
        if (found == 0 && listing) {  // not "no capture": it could not be looked into
            gaps.push_back(fmt::format("{}: cannot read the directory ({}); rank{} has no data",
                                       rel(rank_dir), listing.message(), *rank));
        } else if (found == 0) {
            gaps.push_back(fmt::format("{}: no d<K> capture directory; rank{} has no data",
                                       rel(rank_dir), *rank));
        }
    }
    return captures;
}

/// Validates the members of one parent dispatch (§1.14 group checks); problems are gaps.
void check_group(const std::string& key, const std::vector<const RankCapture*>& members,
                 std::vector<std::string>& gaps) {
    std::set<std::int64_t> sizes, indexes;
    std::set<std::string> digests;
    std::set<int> ranks;
    for (const RankCapture* m : members) {
        if (!m->identity) continue;
        sizes.insert(m->identity->group_size);
        digests.insert(m->identity->callable_digest);
        if (!indexes.insert(m->identity->group_index).second)
            gaps.push_back(fmt::format("{}: group index {} appears twice ({})", key,
                                       m->identity->group_index, m->label));
        if (!ranks.insert(m->rank).second)
            gaps.push_back(fmt::format("{}: rank{} appears twice", key, m->rank));
    }
    if (sizes.size() > 1) gaps.push_back(fmt::format("{}: members disagree on group_size", key));
    if (digests.size() > 1)
        gaps.push_back(fmt::format("{}: members disagree on callable_digest", key));
    if (sizes.size() == 1 && static_cast<std::int64_t>(indexes.size()) != *sizes.begin())
        gaps.push_back(
            fmt::format("{}: {} of {} group members present (group indexes are not "
                        "exactly 0..{})",
                        key, indexes.size(), *sizes.begin(), *sizes.begin() - 1));
}

/// Pairing (§1.14): by parent identity when every capture has a group sidecar, else by dN;
/// gives every capture its dispatch key.
void choose_pairing(Tree& tree, std::vector<RankCapture>& captures, const Selection& selection) {
    std::size_t with_sidecar = 0, grouped = 0;
    for (const RankCapture& c : captures) {
        // A broken sidecar was said already: it counts as present here.
        with_sidecar += c.identity.has_value() || c.sidecar_unusable;
        grouped += c.identity && c.identity->group_size > 1;
    }
    bool by_identity = !captures.empty() && grouped == captures.size();
    if (selection.dispatch) by_identity = false;
    if (with_sidecar > 0 && with_sidecar < captures.size())
        tree.gaps.push_back(
            fmt::format("dispatch_identity.json on {} of {} captures only; paired "
                        "by dN",
                        with_sidecar, captures.size()));
    else if (grouped > 0 && grouped < captures.size())
        tree.gaps.push_back(
            "some sidecars name a group and some an individual submission; "
            "paired by dN");
    if (by_identity) tree.pairing = Pairing::ParentDispatchIdentity;
    for (RankCapture& c : captures)
        c.key = by_identity ? fmt::format("run{}:{}", c.identity->run_id, c.identity->task_slot)
                            : fmt::format("d{}", c.dispatch);
}

/// Keeps the captures of the selected dispatch (--dispatch dN or --dispatch-id RUN:SLOT).
Status select_dispatch(Tree& tree, std::vector<RankCapture>& captures, const Selection& selection) {
    if (selection.dispatch) {
        int n = *selection.dispatch;
        std::erase_if(captures, [&](const RankCapture& c) { return c.dispatch != n; });
        if (captures.empty())
            return input_error(fmt::format("no rank has d{}", n), tree.root.string());
        // dN holding the members of one group (§1.14: "with --dispatch dN and group sidecars the
        // result is validated the same way"; the two-rank fixture's README: "--dispatch d0:
        // group of 2 → parent-identity pairing"): paired and checked as that group.
        const RankCapture& first = captures.front();
        bool one_group = std::all_of(captures.begin(), captures.end(), [&](const RankCapture& c) {
            return c.identity && first.identity && c.identity->group_size > 1 &&
                   c.identity->run_id == first.identity->run_id &&
                   c.identity->task_slot == first.identity->task_slot;
        });
        if (one_group) {
            tree.pairing = Pairing::ParentDispatchIdentity;
            for (RankCapture& c : captures)
                c.key = fmt::format("run{}:{}", c.identity->run_id, c.identity->task_slot);
        }
    } else if (selection.parent) {
        // Not a structured binding: clang 14 cannot capture one in a lambda.
        const auto run = selection.parent->first;
        const auto slot = selection.parent->second;
        std::erase_if(captures, [&](const RankCapture& c) {
            return !c.identity || c.identity->run_id != run || c.identity->task_slot != slot;
        });
        if (captures.empty())
            return input_error(fmt::format("no dispatch_identity.json names run_id {}, task_slot "
                                           "{}",
                                           run, slot),
                               tree.root.string());
        if (captures.front().identity->group_size == 1)
            return input_error(fmt::format("dispatch {}:{} is an individual submission; pair it "
                                           "by dN",
                                           run, slot),
                               tree.root.string());
        tree.pairing = Pairing::ParentDispatchIdentity;
        for (RankCapture& c : captures) c.key = fmt::format("run{}:{}", run, slot);
    }

    return ok_status();
}

/// Orders the captures (keys by their lowest dN, then by name; ranks ascending within) and
/// lists the dispatches.
void order_captures(Tree& tree, std::vector<RankCapture> captures) {
    // Keys in the order of their lowest dN, then by name; ranks ascending within.
    std::map<std::string, int> first_d;
    for (const RankCapture& c : captures) {
        auto [it, inserted] = first_d.try_emplace(c.key, c.dispatch);
        if (!inserted) it->second = std::min(it->second, c.dispatch);
    }
    std::sort(captures.begin(), captures.end(), [&](const RankCapture& a, const RankCapture& b) {
        return std::tie(first_d[a.key], a.key, a.rank, a.dispatch) <
               std::tie(first_d[b.key], b.key, b.rank, b.dispatch);
    });
    // A parent dispatch held in one dN on every rank is named by both: "d0 (run1:0)".
    if (tree.pairing == Pairing::ParentDispatchIdentity) {
        std::map<std::string, std::set<int>> ds;
        for (const RankCapture& c : captures) ds[c.key].insert(c.dispatch);
        for (RankCapture& c : captures)
            if (ds[c.key].size() == 1) c.key = fmt::format("d{} ({})", c.dispatch, c.key);
    }
    tree.captures = std::move(captures);
    for (const RankCapture& c : tree.captures)
        if (tree.dispatches.empty() || tree.dispatches.back() != c.key)
            tree.dispatches.push_back(c.key);
}

/// A gap for each dispatch some ranks lack (ranks already said to be left out or empty are not
/// listed again), and the group checks of parent-identity pairing.
void note_missing_ranks(Tree& tree, const Selection& selection,
                        const std::set<std::pair<int, int>>& left_out,
                        const std::set<int>& empty_ranks) {
    for (const std::string& key : tree.dispatches) {
        auto members = tree.of(key);
        std::set<int> present;
        for (const RankCapture* m : members) present.insert(m->rank);
        std::vector<int> missing;
        int d = members.front()->dispatch;
        bool by_index = tree.pairing == Pairing::LocalCaptureIndex;
        std::size_t considered = 0;
        for (int r : tree.ranks) {
            if (empty_ranks.count(r)) continue;
            ++considered;
            // A left-out capture was said already: by dN it is that dispatch's; by parent
            // identity it cannot be placed, so its rank is not listed as missing either.
            bool said = by_index ? left_out.count({r, d}) > 0
                                 : std::any_of(left_out.begin(), left_out.end(),
                                               [&](const auto& lo) { return lo.first == r; });
            if (!present.count(r) && !said) missing.push_back(r);
        }
        if (!missing.empty()) {
            if (selection.dispatch)
                for (int r : missing)
                    tree.gaps.push_back(
                        fmt::format("rank{} is missing d{}/chip_swimlane_records.json", r,
                                    *selection.dispatch));
            else
                tree.gaps.push_back(
                    fmt::format("{} is on {} of {} ranks only (missing on {}); "
                                "compared across the ranks that have it",
                                key, present.size(), considered, rank_list(missing)));
        }
        if (tree.pairing == Pairing::ParentDispatchIdentity) check_group(key, members, tree.gaps);
    }
}

}  // namespace

Result<DistributedMeta> parse_distributed_meta(std::string_view text, const std::string& source) {
    auto bad = [&](std::string message) { return input_error(std::move(message), source); };
    auto parsed = json_document::parse(text, source);
    if (!parsed) return parsed.error();
    const nlohmann::json& doc = *parsed;
    if (!doc.is_object()) return bad("distributed_meta.json is not a JSON object");
    const auto schema = doc.find("schema");
    if (schema == doc.end() || !schema->is_number_integer() || *schema != 2)
        return bad(fmt::format("distributed_meta.json has an unknown schema ({}; ptune reads 2)",
                               schema == doc.end() ? "none" : schema->dump()));
    DistributedMeta meta;
    auto text_of = [&](const nlohmann::json& object, const char* key) {
        auto it = object.find(key);
        return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    auto int_of = [&](const nlohmann::json& object, const char* key) -> std::int64_t {
        auto it = object.find(key);
        return it != object.end() && it->is_number_integer() ? it->get<std::int64_t>() : 0;
    };
    if (auto params = doc.find("params"); params != doc.end() && params->is_array())
        meta.params = params->size();
    meta.platform = text_of(doc, "platform");
    meta.backend = text_of(doc, "backend_type");
    const auto config = doc.find("distributed_config");
    if (config == doc.end() || !config->is_object())
        return bad("distributed_meta.json has no distributed_config object");
    const auto ids = config->find("device_ids");
    if (ids == config->end() || !ids->is_array() || ids->empty())
        return bad("distributed_meta.json: device_ids must be a non-empty list");
    for (const auto& id : *ids) {
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0)
            return bad(
                fmt::format("distributed_meta.json: device id {} is not a non-negative "
                            "integer",
                            json_document::dump(id)));
        const auto value = id.get<std::int64_t>();
        if (std::find(meta.device_ids.begin(), meta.device_ids.end(), value) !=
            meta.device_ids.end())
            return bad(fmt::format("distributed_meta.json: device id {} twice", value));
        meta.device_ids.push_back(value);
    }
    meta.sub_workers = int_of(*config, "num_sub_workers");
    meta.runtime = text_of(*config, "runtime");
    meta.aicpu_threads = int_of(*config, "aicpu_thread_num");
    return meta;
}

Result<std::string> parse_dispatch_program(std::string_view text, const std::string& source) {
    auto parsed = json_document::parse(text, source);
    if (!parsed) {
        Error error = parsed.error();
        error.message += "; labels stay anonymous";
        return error;
    }
    const nlohmann::json& doc = *parsed;
    const auto program = doc.is_object() ? doc.find("program") : doc.end();
    if (!doc.is_object() || program == doc.end() || !program->is_string() ||
        program->get<std::string>().empty())
        return input_error("dispatch_program.json has no program name; labels stay anonymous",
                           source);
    return program->get<std::string>();
}

Result<BinaryContext> parse_binary_context(std::string_view text, const std::string& source) {
    auto bad = [&](std::string message) { return input_error(std::move(message), source); };
    auto parsed = json_document::parse(text, source);
    if (!parsed) return parsed.error();
    const nlohmann::json& doc = *parsed;
    if (!doc.is_object()) return bad("binary_context.json is not a JSON object");
    const auto schema = doc.find("schema");
    if (schema == doc.end() || !schema->is_number_integer() || *schema != 1)
        return bad(fmt::format("binary_context.json has an unknown schema ({}; ptune reads 1)",
                               schema == doc.end() ? "none" : schema->dump()));
    auto text_of = [&](const char* key) {
        auto it = doc.find(key);
        return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    BinaryContext context{text_of("platform"), text_of("runtime_name"), text_of("runtime_revision"),
                          text_of("pto_isa_revision")};
    for (const auto& [key, value] : {std::pair{"runtime_revision", &context.runtime_revision},
                                     std::pair{"pto_isa_revision", &context.pto_isa_revision}}) {
        const bool hex =
            value->size() == 40 && std::all_of(value->begin(), value->end(), [](char c) {
                return std::isxdigit(static_cast<unsigned char>(c)) != 0;
            });
        if (!hex) return bad(fmt::format("binary_context.json: {} is not 40 hex digits", key));
    }
    return context;
}

std::string describe(const BinaryContext& context) {
    return fmt::format("runtime {} @ {}, PTO-ISA @ {}{}",
                       context.runtime_name.empty() ? "?" : context.runtime_name,
                       context.runtime_revision.substr(0, 12),
                       context.pto_isa_revision.substr(0, 12),
                       context.platform.empty() ? "" : ", " + context.platform);
}

std::string rank_devices(const DistributedMeta& meta, const std::vector<int>& ranks) {
    std::vector<std::string> pairs;
    for (int rank : ranks) {
        if (rank < 0 || static_cast<std::size_t>(rank) >= meta.device_ids.size()) return {};
        pairs.push_back(fmt::format("rank{} = device {}", rank,
                                    meta.device_ids[static_cast<std::size_t>(rank)]));
    }
    return fmt::format("{}", fmt::join(pairs, ", "));
}

std::string describe(const DistributedMeta& meta) {
    std::string where = meta.platform.empty() ? "platform ?" : meta.platform;
    if (!meta.backend.empty()) where += fmt::format(" ({})", meta.backend);
    return fmt::format(
        "L3 build: {} device(s) [{}], {}, runtime {}, {} sub-worker(s), {} AICPU "
        "thread(s), {} orchestrator parameter(s)",
        meta.device_ids.size(), fmt::join(meta.device_ids, ", "), where,
        meta.runtime.empty() ? "?" : meta.runtime, meta.sub_workers, meta.aicpu_threads,
        meta.params);
}

Result<Tree> read_tree(const fs::path& input, const Selection& selection) {
    Tree tree;
    std::string note;
    auto root = find_root(input, &note);
    if (!root)
        return input_error(
            "no L3 tree here (no rank<N>/ directory directly, in dfx_outputs/ or "
            "in the newest <Program>_<ts>/ run)",
            input.string());
    tree.root = *root;
    if (!note.empty()) tree.notes.push_back(note);
    // The build's distributed_meta.json sits beside dfx_outputs/ (§7.1).
    if (fs::path meta = tree.root.parent_path() / "distributed_meta.json"; is_file(meta)) {
        auto text = io::read_file(meta.string(), 1 << 24);
        auto parsed = text ? parse_distributed_meta(*text, meta.string())
                           : Result<DistributedMeta>(text.error());
        if (parsed) {
            tree.notes.push_back(describe(*parsed));
            tree.build = std::move(*parsed);
        } else
            tree.gaps.push_back(parsed.error().to_string() + "; the run is read without it");
    }
    std::set<int> all_ranks;
    std::set<std::pair<int, int>> left_out;  // already said: not said again as "missing"
    std::set<int> empty_ranks;  // said as "no d<K>": not listed as missing each dispatch
    std::vector<RankCapture> captures =
        enumerate(tree.root, tree.gaps, all_ranks, left_out, empty_ranks);
    tree.ranks.assign(all_ranks.begin(), all_ranks.end());
    if (tree.build) {
        if (std::string pairs = rank_devices(*tree.build, tree.ranks); !pairs.empty())
            tree.notes.push_back(
                "rank ↔ device (distributed_meta.json device_ids in rank order): " + pairs);
    }
    // Which next-level program each dispatch ran (dispatch_program.json, §7.3).
    std::map<std::string, std::vector<std::string>> by_program;
    for (const RankCapture& c : captures)
        if (!c.program.empty()) by_program[c.program].push_back(c.label);
    if (by_program.size() == 1 && by_program.begin()->second.size() == captures.size())
        tree.notes.push_back(
            fmt::format("dispatch program: {} (every capture)", by_program.begin()->first));
    else
        for (const auto& [program, labels] : by_program)
            tree.notes.push_back(
                fmt::format("dispatch program {}: {}", program, fmt::join(labels, ", ")));

    choose_pairing(tree, captures, selection);
    if (Status s = select_dispatch(tree, captures, selection); !s) return s.error();
    order_captures(tree, std::move(captures));
    note_missing_ranks(tree, selection, left_out, empty_ranks);
    return tree;
}

}  // namespace ptune::l3
