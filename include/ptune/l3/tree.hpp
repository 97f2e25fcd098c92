#pragma once
/// @file tree.hpp
/// The directory tree of a multi-card (L3) run: `rank<N>/d<K>/` capture directories under a
/// `dfx_outputs/` (upstream-2026-09.md §1.14, swimlane.md §1.3), their `dispatch_identity.json`
/// sidecars, and the pairing of one dispatch across ranks (the same `d<K>` on every rank, or the
/// members of one `submit_next_level_group` by their parent `(run_id, task_slot)`).
///
/// Enumeration never fails on a damaged tree: what cannot be used is a gap, said once, and the
/// rest is analysed (a rank directory missing its records, a dispatch on some ranks only, two
/// directories naming one rank, an odd directory name, a sidecar that breaks its rules).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptune/core/error.hpp"

namespace ptune::l3 {

/// `dispatch_identity.json` (upstream-2026-09.md §1.14), every rule checked.
struct DispatchIdentity {
    std::int64_t run_id = 0;               ///< > 0: the parent scheduler run
    std::int64_t task_slot = 0;            ///< ≥ 0: the parent task slot
    std::int64_t group_index = 0;          ///< 0 ≤ index < size
    std::int64_t group_size = 1;           ///< 1 = an individual submission
    std::int64_t chip_rank = 0;            ///< N of rank<N>/d<K>
    std::int64_t local_capture_index = 0;  ///< K of rank<N>/d<K>
    std::int64_t endpoint_dispatch_id = 0;
    std::int64_t pipeline_slot = 0;
    std::int64_t pipeline_generation = 0;
    std::string callable_digest;           ///< 64 lowercase hex
    std::optional<std::int64_t> host_pid;  ///< newer writers only
};

/// Parses and validates a sidecar. `source` names the file in the error; `rank` and `dispatch`
/// are the N and K of its directory (−1: not below a rank<N>/d<K> path).
Result<DispatchIdentity> parse_dispatch_identity(std::string_view text, const std::string& source,
                                                 int rank, int dispatch);

/// `distributed_meta.json` of an L3 build (upstream-2026-12.md §7.2): the orchestrator's
/// signature and where it ran. Schema 2 only; another schema is an error naming it.
struct DistributedMeta {
    std::size_t params = 0;  ///< orchestrator parameters
    std::string platform;    ///< "a2a3", …
    std::string backend;     ///< backend_type: "Ascend910B", …
    std::vector<std::int64_t> device_ids;
    std::int64_t sub_workers = 0;
    std::string runtime;
    std::int64_t aicpu_threads = 0;
};

/// Parses and checks the file (device_ids non-empty, non-negative, distinct).
Result<DistributedMeta> parse_distributed_meta(std::string_view text, const std::string& source);

/// `dispatch_program.json` (§7.3): the next-level program a dispatch ran, `{"program": "…"}`.
Result<std::string> parse_dispatch_program(std::string_view text, const std::string& source);

/// `next_levels/<program>/cache/binary_context.json` (§7.4): the runtime and PTO-ISA revisions
/// a program's kernels were built against (provenance).
struct BinaryContext {
    std::string platform;
    std::string runtime_name;
    std::string runtime_revision;  ///< 40 hex digits
    std::string pto_isa_revision;  ///< 40 hex digits
};

/// Parses the file: schema 1, both revisions 40 hex digits; anything else is an error naming it.
Result<BinaryContext> parse_binary_context(std::string_view text, const std::string& source);

/// "runtime tensormap_and_ringbuffer @ 1a2b3c4d5e6f, PTO-ISA @ 9f8e7d6c5b4a, a2a3".
std::string describe(const BinaryContext& context);

/// "rank0 = device 1, rank1 = device 3": device_ids in rank order (the loader's ordered
/// logical-rank-to-device mapping), empty when the ranks are not 0..n−1 of the ids.
std::string rank_devices(const DistributedMeta& meta, const std::vector<int>& ranks);

/// One line for the user: "L3 build: 2 device(s) [1, 3], a2a3 (Ascend910B), runtime …".
std::string describe(const DistributedMeta& meta);

/// One `rank<N>/d<K>/` directory.
struct RankCapture {
    int rank = -1;
    int dispatch = -1;  ///< K, the rank's local capture index
    std::string label;  ///< "rank3/d0"
    std::filesystem::path dir;
    std::filesystem::path records;  ///< chip_swimlane_records.json (or an older name); or empty
    std::filesystem::path pmu;      ///< pmu.csv; or empty
    std::optional<DispatchIdentity> identity;
    bool sidecar_unusable = false;  ///< a dispatch_identity.json is there but breaks a rule
    /// dispatch_program.json's program; empty without one (anonymous: one program assumed)
    std::string program;
    std::string key;  ///< the dispatch it belongs to across ranks: "d0", or "run1:0" when paired
                      ///< by parent dispatch identity
};

/// How captures were paired across ranks (metadata `dispatch_pairing`).
enum class Pairing { LocalCaptureIndex, ParentDispatchIdentity };

/// An L3 tree as found.
struct Tree {
    std::filesystem::path root;           ///< the directory holding rank*/
    std::vector<RankCapture> captures;    ///< by (key order, rank)
    std::vector<std::string> dispatches;  ///< keys in order
    std::vector<int> ranks;               ///< every rank id, ascending
    Pairing pairing = Pairing::LocalCaptureIndex;
    std::vector<std::string> gaps;         ///< each problem once, for stderr and the report
    std::vector<std::string> notes;        ///< how the root was chosen
    std::optional<DistributedMeta> build;  ///< distributed_meta.json beside dfx_outputs/, when read

    /// The captures of one dispatch key.
    std::vector<const RankCapture*> of(std::string_view key) const;
};

/// Which dispatch(es) to take: everything, `--dispatch dN` or `--dispatch-id RUN_ID:TASK_SLOT`.
struct Selection {
    std::optional<int> dispatch;                                  ///< N of dN
    std::optional<std::pair<std::int64_t, std::int64_t>> parent;  ///< (run_id, task_slot)
};

/// Parses `dN` (also a bare `N`). Fails with a usage message.
Result<int> parse_dispatch(std::string_view text);
/// Parses `RUN_ID:TASK_SLOT`. Fails with a usage message.
Result<std::pair<std::int64_t, std::int64_t>> parse_dispatch_id(std::string_view text);

/// Whether `input` (a directory, its dfx_outputs/, or the newest run of a build_output/) holds
/// rank*/ directories; then the root, else nullopt. `note` receives how a run was chosen.
std::optional<std::filesystem::path> find_root(const std::filesystem::path& input,
                                               std::string* note = nullptr);

/// Enumerates the tree under `input` (see find_root) and pairs its captures; `selection` keeps
/// one dispatch. Fails when `input` holds no rank*/ directory, or the selection matches
/// nothing; everything else is a gap.
Result<Tree> read_tree(const std::filesystem::path& input, const Selection& selection = {});

}  // namespace ptune::l3
