// The reader of deps.json (one SAX pass) and the converter's func_id resolution and kernel naming
// (swimlane.md §3, §4, §5.3, §6.3).

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "flat_object.hpp"
#include "ptune/core/json_walk.hpp"
#include "ptune/swimlane/reader.hpp"

namespace ptune::swimlane {

namespace {

using json_stream::Scalar;

/// The (pred, succ) pairs seen so far, as indices into the edge list. The runtime writes the
/// edges grouped by successor in ascending order, and while they come that way a repeat can only
/// be in the current successor's group: a short scan of memory just written. The first edge out
/// of that order (or a group too large to scan) switches to a flat open-addressing table of
/// 32-bit slots over all edges, which a large graph would otherwise probe at random per edge.
class EdgeSet {
  public:
    explicit EdgeSet(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& edges)
        : edges_(edges) {}
    /// True when the pair is new; the caller then appends it to the edge list.
    bool insert(std::uint64_t pred, std::uint64_t succ) {
        if (slots_.empty() && in_groups(succ)) {
            for (std::size_t e = group_begin_; e < edges_.size(); ++e)
                if (edges_[e].first == pred) return false;
            return true;
        }
        if (2 * (edges_.size() + 1) > slots_.size()) grow();
        std::uint32_t& slot = probe(pred, succ);
        if (slot != 0) return false;
        slot = static_cast<std::uint32_t>(edges_.size() + 1);  // the index the caller appends at
        return true;
    }

  private:
    static constexpr std::size_t kGroupScan = 32;

    /// Whether the edges so far, followed by one into `succ`, are still grouped by ascending
    /// successor with groups short enough to scan; starts the next group when `succ` begins one.
    bool in_groups(std::uint64_t succ) {
        if (edges_.empty() || succ > edges_.back().second) {
            group_begin_ = edges_.size();
            return true;
        }
        return succ == edges_.back().second && edges_.size() - group_begin_ < kGroupScan;
    }
    std::uint32_t& probe(std::uint64_t pred, std::uint64_t succ) {
        std::size_t mask = slots_.size() - 1;
        std::uint64_t h = (pred * 0x9E3779B97F4A7C15ull) ^ (succ * 0xC2B2AE3D27D4EB4Full);
        std::size_t at = static_cast<std::size_t>(h >> 32) & mask;
        while (slots_[at] != 0 && edges_[slots_[at] - 1] != std::pair{pred, succ})
            at = (at + 1) & mask;
        return slots_[at];
    }
    void grow() {
        slots_.assign(std::max<std::size_t>(64, slots_.size() * 2), 0);
        for (std::size_t i = 0; i < edges_.size(); ++i)
            probe(edges_[i].first, edges_[i].second) = static_cast<std::uint32_t>(i + 1);
    }

    const std::vector<std::pair<std::uint64_t, std::uint64_t>>& edges_;
    std::vector<std::uint32_t> slots_;  ///< empty while the edges come grouped
    std::size_t group_begin_ = 0;       ///< the current successor's first edge
};

class DepsWalker final : public json_stream::JsonWalker {
  public:
    explicit DepsWalker(Deps& into) : deps(&into) {}
    Deps* deps;
    bool saw_edges = false;
    bool saw_tasks = false;
    std::size_t bad_edges = 0;
    std::size_t bad_tasks = 0;

  protected:
    void on_open(std::size_t level, bool is_object) override {
        if (level == 1) {
            // The section is looked up once per top-level member, not per value.
            section_ = key_at(1) == "tasks"   ? Section::Tasks
                       : key_at(1) == "edges" ? Section::Edges
                                              : Section::Other;
            if (section_ == Section::Edges && !is_object) saw_edges = true;
            if (section_ == Section::Tasks && !is_object) saw_tasks = true;
        } else if (level == 2 && is_object) {
            has_id_ = has_pred_ = has_succ_ = false;
            kernel_ids_.clear();
            block_num_ = 1;
            early_dispatch_ = false;
        }
    }

    void on_close(std::size_t level, bool is_object) override {
        if (level != 2 || !is_object) return;
        if (section_ == Section::Tasks) {
            if (!has_id_) {
                ++bad_tasks;
                return;
            }
            DepsTask& task = deps->tasks[id_];
            if (kernel_ids_.size() == 3) {
                task.has_kernel_ids = true;
                for (std::size_t i = 0; i < 3; ++i)
                    task.kernel_ids[i] = static_cast<std::int32_t>(kernel_ids_[i]);
            }
            task.block_num = static_cast<std::uint32_t>(std::max<std::int64_t>(block_num_, 1));
            task.early_dispatch = early_dispatch_;
        } else if (section_ == Section::Edges) {
            if (!has_pred_ || !has_succ_) {
                ++bad_edges;
                return;
            }
            if (seen_.insert(pred_, succ_))
                deps->edges.emplace_back(pred_, succ_);
            else
                ++deps->duplicate_edges;
        }
    }

    void on_scalar(const Scalar& v) override {
        std::size_t d = depth();
        if (d == 3)
            field(key_at(3), v);
        else if (d == 4)
            element(key_at(3), v);
    }

    /// A task or an edge (an object of `tasks` or `edges`) whose values are scalars or arrays of
    /// scalars, on one line and without escapes, read at once (~20% of the time the callbacks
    /// take): the same calls in the same order. Anything else is left to the callbacks, which
    /// start the object afresh.
    std::size_t take_container(std::size_t level, std::string_view text) override {
        if (level != 2 || text.front() != '{' ||
            (section_ != Section::Tasks && section_ != Section::Edges))
            return 0;
        on_open(level, true);
        records::flat::Cursor at{text.data(), text.data() + text.size()};
        ++at.p;
        if (!at.skip_space()) return 0;
        for (std::size_t member = 0; *at.p != '}'; ++member) {
            std::string_view key;
            if (*at.p != '"' ||
                !records::flat::member_key(
                    at, member < shapes_.size() ? shapes_[member] : spare_shape_, key))
                return 0;
            Scalar value;
            if (*at.p == '[') {
                ++at.p;
                if (!at.skip_space()) return 0;
                while (*at.p != ']') {
                    if (!scalar(at, value)) return 0;
                    element(key, value);
                    if (!at.skip_space() || (*at.p != ']' && *at.p != ',')) return 0;
                    if (*at.p == ',' && (++at.p, !at.skip_space() || *at.p == ']')) return 0;
                }
                ++at.p;
            } else {
                if (!scalar(at, value)) return 0;
                field(key, value);
            }
            if (!at.skip_space() || (*at.p != '}' && *at.p != ',')) return 0;
            if (*at.p == ',' && (++at.p, !at.skip_space() || *at.p != '"')) return 0;
        }
        on_close(level, true);
        return static_cast<std::size_t>(at.p + 1 - text.data());
    }

  private:
    /// A scalar member of a task or an edge.
    void field(std::string_view k, const Scalar& v) {
        if (section_ == Section::Tasks) {
            if (k == "task_id")
                has_id_ = v.as_id(id_);
            else if (k == "block_num" && v.is_int())
                block_num_ = v.integer;
            else if (k == "early_dispatch")
                early_dispatch_ = v.type == Scalar::Type::Bool && v.integer != 0;
        } else if (section_ == Section::Edges) {
            if (k == "pred")
                has_pred_ = v.as_id(pred_);
            else if (k == "succ")
                has_succ_ = v.as_id(succ_);
        }
    }
    /// An element of an array member `k` of a task or an edge.
    void element(std::string_view k, const Scalar& v) {
        if (section_ == Section::Tasks && k == "kernel_ids")
            kernel_ids_.push_back(v.is_int() ? v.integer : -1);
    }
    /// A plain string, an integer of at most 18 digits or a literal, as the tokenizer reads it.
    static bool scalar(records::flat::Cursor& at, Scalar& value) {
        value = {};
        const char c = *at.p;
        if (c == '"') {
            value.type = Scalar::Type::String;
            return at.string(value.text);
        }
        if (records::flat::Cursor::starts_number(c)) {
            value.type = Scalar::Type::Int;
            if (!at.integer(value.integer)) return false;
            value.number = static_cast<double>(value.integer);
            return true;
        }
        // (What follows a literal is checked as after any value.)
        const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
        if ((c != 't' && c != 'f' && c != 'n') ||
            static_cast<std::size_t>(at.end - at.p) < word.size() ||
            std::string_view(at.p, word.size()) != word)
            return false;
        at.p += word.size();
        value.type = c == 'n' ? Scalar::Type::Null : Scalar::Type::Bool;
        value.integer = c == 't' ? 1 : 0;
        return true;
    }

    enum class Section { Other, Tasks, Edges } section_ = Section::Other;
    bool has_id_ = false, has_pred_ = false, has_succ_ = false;
    std::uint64_t id_ = 0, pred_ = 0, succ_ = 0;
    std::vector<std::int64_t> kernel_ids_;
    std::int64_t block_num_ = 1;
    bool early_dispatch_ = false;
    EdgeSet seen_{deps->edges};
    /// The members' keys as the last task or edge wrote them (records::flat::member_key).
    std::array<records::MemberShape, 8> shapes_{};
    records::MemberShape spare_shape_;  ///< for a member past those
};

/// Reads deps.json from `input` (a text or a stream) in one walk.
template <class Input>
Result<Deps> read_deps_from(Input& input, std::string_view source_name, Diagnostics& diagnostics) {
    Deps deps;
    deps.source = std::string(source_name);
    DepsWalker walker(deps);
    bool complete = json_stream::walk(input, walker);
    // The tables' last doubling left up to half of them unused, in this thread's own arena,
    // resident for the whole run (1.1 MB at 20K tasks): given back.
    deps.tasks.shrink_to_fit();
    deps.edges.shrink_to_fit();
    if (!complete) {
        std::size_t line = walker.error_line();
        if (!walker.saw_edges && !walker.saw_tasks)
            return Error{fmt::format("not a usable deps.json: {}", walker.error_message()),
                         std::string(source_name), line};
        deps.truncated = true;
        diagnostics.warn(
            std::string(source_name), line,
            fmt::format(
                "deps.json ends early ({}); using the {} task(s) and {} edge(s) before the damage",
                walker.error_message(), deps.tasks.size(), deps.edges.size()));
    } else if (!walker.saw_edges) {
        return Error{"not a deps.json: no `edges` list", std::string(source_name), 0};
    }
    if (walker.bad_edges)
        diagnostics.warn(
            std::string(source_name), 0,
            fmt::format("{} edge(s) without a usable pred/succ id ignored", walker.bad_edges));
    if (walker.bad_tasks)
        diagnostics.warn(
            std::string(source_name), 0,
            fmt::format("{} task(s) without a usable task_id ignored", walker.bad_tasks));
    return deps;
}

}  // namespace

Result<Deps> read_deps(std::string_view deps_json, std::string_view source_name,
                       Diagnostics& diagnostics) {
    return read_deps_from(deps_json, source_name, diagnostics);
}

Result<Deps> read_deps(std::istream& deps_json, std::string_view source_name,
                       Diagnostics& diagnostics) {
    return read_deps_from(deps_json, source_name, diagnostics);
}

std::size_t apply_deps(Capture& capture, const Deps& deps) {
    std::size_t missing = 0;
    std::uint64_t last_missing = 0;
    bool any_missing = false;
    for (TaskRow& row : capture.tasks) {
        const DepsTask* found = deps.tasks.find(row.task_id);
        if (!found) {
            // Rows are sorted by task id, so distinct missing ids are counted once.
            if (!any_missing || last_missing != row.task_id) ++missing;
            any_missing = true;
            last_missing = row.task_id;
            continue;
        }
        const DepsTask& task = *found;
        row.block_num = task.block_num;
        if (row.func_id >= 0 || !task.has_kernel_ids) continue;
        if (row.core_type == CoreType::Aic) {
            if (task.kernel_ids[0] >= 0) row.func_id = task.kernel_ids[0];
        } else if (task.kernel_ids[1] >= 0) {
            row.func_id = task.kernel_ids[1];
        } else if (task.kernel_ids[2] >= 0) {
            row.func_id = task.kernel_ids[2];
        }
    }
    return missing;
}

std::string kernel_base_name(std::int32_t func_id, const KernelNames* names) {
    if (func_id < 0) return "task";
    if (names)
        if (const KernelInfo* kernel = names->find(func_id)) return kernel->name;
    // Bijective base-26: 0 → a, 25 → z, 26 → aa.
    std::string letters;
    for (std::int64_t n = func_id + 1; n > 0; n = (n - 1) / 26)
        letters.insert(letters.begin(), static_cast<char>('a' + (n - 1) % 26));
    return fmt::format("func_{}_{}", func_id, letters);
}

}  // namespace ptune::swimlane
