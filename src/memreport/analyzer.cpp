#include "ptune/memreport/analyzer.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "ptune/memreport/findings.hpp"
#include "ptune/memreport/live_ranges.hpp"
#include "ptune/memreport/tile_model.hpp"

namespace ptune::memreport {

namespace {

// Exact Used from a v3 Buffers block: max(addr_end) == Used always holds; an (unallocated) row
// contributes its size as a lower bound (mem-report.md §6).
std::optional<std::uint64_t> used_from_buffers(const SpaceUsage& usage) {
    if (usage.buffers.empty()) return std::nullopt;
    std::uint64_t used = 0;
    for (const auto& buffer : usage.buffers) {
        used = std::max(used, buffer.allocated ? buffer.addr_end : buffer.size_bytes);
    }
    return used;
}

void set_exact_used(SpaceUsage& usage, std::uint64_t bytes) {
    usage.used_bytes = usage.used_min = usage.used_max = bytes;
    usage.used_exact = true;
}

void derive_used(const Report& report, const Function& function, SpaceUsage& usage,
                 Diagnostics& diagnostics) {
    if (usage.exact_used) return set_exact_used(usage, *usage.exact_used);  // a pass dump
    // The parser only keeps rows whose Used parses; a rounded one (`156.8 KB`) stands for every
    // byte count printing so, narrowed by the printed Usage in derive_limit.
    auto printed = parse_size(usage.used_text);
    std::uint64_t nearest = printed ? printed->bytes : 0;
    // `0.5 KB` parses but no byte count prints so: keep the nearest, not exact.
    auto range = size_interval(usage.used_text).value_or(ByteInterval{nearest, nearest});
    usage.used_min = range.lo;
    usage.used_max = range.hi;
    // The nearest byte count to the printed value (`156.8 KB` → 160563), until narrowed.
    usage.used_bytes = std::clamp(nearest, range.lo, range.hi);
    usage.used_exact = printed && printed->exact;
    auto from_buffers = used_from_buffers(usage);
    if (!from_buffers) return;
    if (format_size(*from_buffers) == usage.used_text) return set_exact_used(usage, *from_buffers);
    diagnostics.warn(
        report.source, usage.line,
        fmt::format("'{}' {}: the Buffers block ends at {} B ({}), but Used says '{}'; the "
                    "block may be truncated, so the printed Used is kept",
                    function.name, usage.space, *from_buffers, format_size(*from_buffers),
                    usage.used_text));
}

// A rounded Used: the printed Usage of the printed Limit narrows the bytes it can be
// (`156.8 KB` alone allows [160512, 160614]; at `81.6%` of `192.0 KB` only [160512, 160530]).
// used_bytes is the printed value moved into that interval (160530, not 160563), so the
// percentage recomputed from it prints as the file printed it (81.6%, not 81.7%).
void narrow_rounded_used(const Report& report, const Function& function, SpaceUsage& usage,
                         Diagnostics& diagnostics) {
    auto narrowed = percent_interval(usage.usage_text, *usage.limit_bytes,
                                     ByteInterval{usage.used_min, usage.used_max});
    if (!narrowed) {
        diagnostics.warn(report.source, usage.line,
                         fmt::format("'{}' {}: no byte count prints as Used '{}' at Usage '{}' "
                                     "of Limit '{}'; the row contradicts itself",
                                     function.name, usage.space, usage.used_text, usage.usage_text,
                                     usage.limit_text));
        return;
    }
    usage.used_min = narrowed->lo;
    usage.used_max = narrowed->hi;
    usage.used_bytes = std::clamp(usage.used_bytes, narrowed->lo, narrowed->hi);
}

void derive_limit(const Report& report, const Function& function, SpaceUsage& usage,
                  std::optional<Backend> backend, Diagnostics& diagnostics) {
    if (usage.limit_text != "N/A") {
        if (auto limit = parse_size(usage.limit_text)) usage.limit_bytes = limit->bytes;
    } else if (backend) {
        usage.limit_bytes = capacity(*backend, usage.space);
        usage.limit_from_backend = usage.limit_bytes.has_value();
    }
    if (!usage.limit_bytes || *usage.limit_bytes == 0) {
        usage.limit_bytes.reset();
        return;
    }
    if (!usage.used_exact && !usage.limit_from_backend && usage.usage_text != "N/A")
        narrow_rounded_used(report, function, usage, diagnostics);
    usage.usage_pct =
        100.0 * static_cast<double>(usage.used_bytes) / static_cast<double>(*usage.limit_bytes);
    // Recomputed from exact bytes, the percentage must print as the report printed it.
    if (usage.used_exact && !usage.limit_from_backend && usage.usage_text != "N/A" &&
        format_percent(*usage.usage_pct) != usage.usage_text) {
        diagnostics.warn(
            report.source, usage.line,
            fmt::format("'{}' {}: Usage says '{}' but Used/Limit is {}", function.name, usage.space,
                        usage.usage_text, format_percent(*usage.usage_pct)));
    }
}

BackendChoice choose_backend(const Report& report, std::optional<Backend> forced,
                             Diagnostics& diagnostics) {
    BackendChoice choice;
    std::optional<Backend> from_header;
    if (!report.backend_token.empty() && report.backend_token != "N/A") {
        from_header = backend_from_token(report.backend_token);
        if (!from_header) {
            diagnostics.warn(
                report.source, report.backend_line,
                fmt::format("unknown backend '{}' (known: 910B, 950, 910B_PTO, 910B_CCE, N/A); "
                            "the backend is inferred from the limits",
                            report.backend_token));
        }
    }
    std::set<Backend> from_limits;
    for (const auto& function : report.functions) {
        for (const auto& usage : function.spaces) {
            auto limit = parse_size(usage.limit_text);
            if (!limit) continue;
            if (auto inferred = backend_from_limit(usage.space, limit->bytes))
                from_limits.insert(*inferred);
        }
    }
    if (from_limits.size() > 1) {
        diagnostics.warn(report.source, 0,
                         "the limits mix a2a3 and a5 capacities; the backend cannot be "
                         "inferred from them");
    }
    std::optional<Backend> inferred =
        from_limits.size() == 1 ? std::optional<Backend>(*from_limits.begin()) : std::nullopt;
    if (from_header && inferred && *from_header != *inferred) {
        diagnostics.warn(
            report.source, report.backend_line,
            fmt::format("'Backend: {}' means {}, but the limits are those of {}",
                        report.backend_token, to_string(*from_header), to_string(*inferred)));
    }
    if (forced) {
        auto seen = from_header ? from_header : inferred;
        if (seen && *seen != *forced) {
            diagnostics.warn(report.source, report.backend_line,
                             fmt::format("--backend {} overrides the report, which is {}",
                                         to_string(*forced), to_string(*seen)));
        }
        choice.backend = forced;
        choice.source = "option";
    } else if (from_header) {
        choice.backend = from_header;
        choice.source = "header";
    } else if (inferred) {
        choice.backend = inferred;
        choice.source = "limits";
    }
    return choice;
}

// M9: equal-size base allocations in pairs or quads suggest a stage-2 (or 4) pipeline.
bool buffers_paired(const SpaceUsage& usage) {
    if (usage.buffers.size() < 2) return false;
    std::map<std::uint64_t, std::size_t> by_size;
    for (const auto& buffer : usage.buffers) ++by_size[buffer.size_bytes];
    return std::all_of(by_size.begin(), by_size.end(),
                       [](const auto& entry) { return entry.second % 2 == 0; });
}

// Where the lowest allocated buffer starts: above 0 when a reserve buffer (e.g. the cross-core
// pipe ring) sits at the bottom of the space.
std::uint64_t reserve_floor(const SpaceUsage& usage) {
    std::optional<std::uint64_t> lowest;
    for (const auto& buffer : usage.buffers) {
        if (buffer.allocated)
            lowest = std::min(lowest.value_or(buffer.addr_begin), buffer.addr_begin);
    }
    return lowest.value_or(0);
}

void publish_function(const Function& function, const BackendChoice& choice,
                      rules::Subject& subject, const std::string& source, bool source_is_dump) {
    std::size_t overlaps = 0;
    auto set = [&](const std::string& name, double value) { subject.metrics[name] = value; };
    std::optional<double> left_right_max;
    std::optional<double> max_usage;
    for (const auto& usage : function.spaces) {
        const std::string prefix = "mem." + usage.space + ".";
        set(prefix + "used_bytes", static_cast<double>(usage.used_bytes));
        set(prefix + "used_exact", usage.used_exact ? 1 : 0);
        set(prefix + "memrefs", static_cast<double>(usage.memrefs));
        if (usage.limit_bytes) set(prefix + "limit_bytes", static_cast<double>(*usage.limit_bytes));
        // Formatted as the report prints them, for messages.
        subject.labels[prefix + "used"] = format_size(usage.used_bytes);
        if (usage.limit_bytes) subject.labels[prefix + "limit"] = format_size(*usage.limit_bytes);
        if (usage.usage_pct) {
            subject.labels[prefix + "usage"] = format_percent(*usage.usage_pct);
            set(prefix + "usage_pct", *usage.usage_pct);
            max_usage = std::max(max_usage.value_or(*usage.usage_pct), *usage.usage_pct);
            if (usage.space == "Left" || usage.space == "Right") {
                left_right_max =
                    std::max(left_right_max.value_or(*usage.usage_pct), *usage.usage_pct);
            }
        }
        if (!usage.buffers.empty()) {
            set(prefix + "buffers", static_cast<double>(usage.buffers.size()));
            set(prefix + "paired_buffers", buffers_paired(usage) ? 1 : 0);
            std::uint64_t floor = reserve_floor(usage);
            set(prefix + "reserve_floor_bytes", static_cast<double>(floor));
        }
        if (usage.peak) {
            set(prefix + "peak_live_bytes", static_cast<double>(usage.peak->bytes));
            set(prefix + "peak_live_buffers", static_cast<double>(usage.peak->live.size()));
        }
        if (!usage.overlaps.empty()) {
            overlaps += usage.overlaps.size();
            if (!subject.labels.count("mem.overlap")) {
                const Buffer& a = usage.buffers[usage.overlaps.front().first];
                const Buffer& b = usage.buffers[usage.overlaps.front().second];
                subject.labels["mem.overlap"] =
                    fmt::format("{} {} [{}, {}) and {} [{}, {}) from {} {}", usage.space, a.name,
                                a.addr_begin, a.addr_end, b.name, b.addr_begin, b.addr_end,
                                source_is_dump ? "line" : "statement", usage.overlaps.front().at);
            }
        }
        if (usage.space == "Vec" && choice.backend && usage.limit_bytes &&
            !usage.limit_from_backend) {
            set("mem.Vec.legacy_limit",
                *usage.limit_bytes == vec_legacy_limit(*choice.backend) ? 1 : 0);
            set("mem.Vec.safe_cap_bytes", static_cast<double>(vec_safe_cap(*choice.backend)));
            subject.labels["mem.Vec.safe_cap"] = format_size(vec_safe_cap(*choice.backend));
        }
    }
    if (left_right_max) set("mem.left_right.max_usage_pct", *left_right_max);
    set("mem.overlapping_buffers", static_cast<double>(overlaps));
    if (max_usage) set("mem.max_usage_pct", *max_usage);

    const SpaceUsage* mat = function.find("Mat");
    const SpaceUsage* acc = function.find("Acc");
    if (mat && acc && mat->limit_bytes && acc->limit_bytes) {
        if (auto growth = suggest_growth(mat->used_bytes, *mat->limit_bytes, acc->used_bytes,
                                         *acc->limit_bytes)) {
            set("mem.grow.k.mat_pct", growth->mat_pct_after_k);
            set("mem.grow.n.acc_pct", growth->acc_pct_after_n);
            subject.labels["mem.grow.k.mat"] = format_percent(growth->mat_pct_after_k);
            subject.labels["mem.grow.n.acc"] = format_percent(growth->acc_pct_after_n);
            subject.labels["mem.grow.n.acc_verdict"] =
                std::string(to_string(growth->acc_verdict_after_n));
        }
    }
    if (choice.backend) subject.labels["mem.backend"] = std::string(to_string(*choice.backend));
    subject.locations.push_back(rules::Location{source, function.line, 0});
}

}  // namespace

// The peak of live bytes and the overlapping live buffers of every space; an overlap is an
// allocator bug, reported with the line of the later allocation.
void derive_live(const Report& report, const Function& function, SpaceUsage& usage,
                 Diagnostics& diagnostics) {
    usage.peak = find_peak(usage);
    usage.overlaps = find_overlaps(usage);
    const char* unit = report.origin == Origin::PassDump ? "line" : "statement";
    for (const auto& overlap : usage.overlaps) {
        const Buffer& a = usage.buffers[overlap.first];
        const Buffer& b = usage.buffers[overlap.second];
        diagnostics.warn(
            report.source, std::max(a.line, b.line),
            fmt::format("'{}' {}: {} [{}, {}) and {} [{}, {}) share bytes while both are live "
                        "(from {} {}): an allocator bug",
                        function.name, usage.space, a.name, a.addr_begin, a.addr_end, b.name,
                        b.addr_begin, b.addr_end, unit, overlap.at));
    }
}

BackendChoice analyze(Report& report, std::optional<Backend> forced, Diagnostics& diagnostics) {
    BackendChoice choice;
    if (report.origin == Origin::PassDump) {
        // The pipeline resolved it (--backend, ptoas/*.pto, compiled_meta.json, assumed).
        choice.backend = report.dump_backend ? report.dump_backend : forced;
        choice.source = report.dump_backend ? report.dump_backend_source : "option";
    } else {
        choice = choose_backend(report, forced, diagnostics);
    }
    for (auto& function : report.functions) {
        for (auto& usage : function.spaces) {
            derive_live(report, function, usage, diagnostics);
            derive_used(report, function, usage, diagnostics);
            derive_limit(report, function, usage, choice.backend, diagnostics);
            if (usage.space == "Vec" && usage.limit_bytes && !usage.limit_from_backend &&
                (*usage.limit_bytes == vec_legacy_limit(Backend::A2A3) ||
                 *usage.limit_bytes == vec_legacy_limit(Backend::A5))) {
                choice.legacy_vec_limit = true;
            }
        }
    }
    return choice;
}

void publish_function_metrics(const Report& report, const BackendChoice& choice,
                              const Function& function, rules::Subject& subject) {
    publish_function(function, choice, subject, report.source, report.origin == Origin::PassDump);
}

void publish_run_metrics(const Report& report, const BackendChoice& choice, rules::Subject& run) {
    run.metrics["mem.report_found"] = 1;
    run.metrics["mem.functions"] = static_cast<double>(report.functions.size());
    run.metrics["mem.legacy_vec_limit"] = choice.legacy_vec_limit ? 1 : 0;
}

void mirror_as_kernel(const rules::Subject& function, rules::Subject& kernel) {
    for (const auto& [name, value] : function.metrics) kernel.metrics[name] = value;
    for (const auto& [name, value] : function.labels) kernel.labels[name] = value;
    kernel.locations.insert(kernel.locations.end(), function.locations.begin(),
                            function.locations.end());
}

void publish_metrics(const Report& report, const BackendChoice& choice, rules::MetricStore& store) {
    for (const auto& function : report.functions) {
        rules::Subject& subject = store.subject("function", function.name);
        publish_function_metrics(report, choice, function, subject);
        // Every function of the report is an in-core kernel (InCore, AIC or AIV) named as in
        // kernel_config.py, the join key of pmu.csv: mirror it for cross-artifact rules.
        mirror_as_kernel(subject, store.subject("kernel", function.name));
    }
    publish_run_metrics(report, choice, store.run());
}

namespace {

nlohmann::json buffer_json(const Buffer& buffer) {
    return {{"name", buffer.name},
            {"size_bytes", buffer.size_bytes},
            {"addr_begin", buffer.addr_begin},
            {"addr_end", buffer.addr_end},
            {"live_begin", buffer.live_begin},
            {"live_end", buffer.live_end}};
}

// The space's peak: live bytes, where, and the buffers live there (name, size, offset, range).
nlohmann::json peak_json(const SpaceUsage& usage) {
    if (!usage.peak) return nullptr;
    nlohmann::json live = nlohmann::json::array();
    for (std::size_t index : usage.peak->live) live.push_back(buffer_json(usage.buffers[index]));
    return {{"live_bytes", usage.peak->bytes},
            {"at", usage.peak->at},
            {"top_address", usage.peak->top},
            {"live", std::move(live)}};
}

nlohmann::json overlaps_json(const SpaceUsage& usage) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& overlap : usage.overlaps) {
        out.push_back({{"first", buffer_json(usage.buffers[overlap.first])},
                       {"second", buffer_json(usage.buffers[overlap.second])},
                       {"from", overlap.at}});
    }
    return out;
}

}  // namespace

nlohmann::json function_json(const Function& function) {
    using nlohmann::json;
    json spaces = json::array();
    json buffers = json::object();
    for (const auto& usage : function.spaces) {
        spaces.push_back({{"space", usage.space},
                          {"used_bytes", usage.used_bytes},
                          {"used_exact", usage.used_exact},
                          {"limit_bytes", usage.limit_bytes ? json(*usage.limit_bytes) : json()},
                          {"limit_source", usage.limit_from_backend ? "backend" : "report"},
                          {"usage_pct", usage.usage_pct ? json(*usage.usage_pct) : json()},
                          {"memrefs", usage.memrefs},
                          {"used_text", usage.used_text},
                          {"limit_text", usage.limit_text},
                          {"usage_text", usage.usage_text},
                          {"peak", peak_json(usage)},
                          {"overlaps", overlaps_json(usage)}});
        if (!usage.used_exact) {  // a rounded Used: every byte count the printed row allows
            spaces.back()["used_bytes_min"] = usage.used_min;
            spaces.back()["used_bytes_max"] = usage.used_max;
        }
        if (usage.buffers.empty()) continue;
        json rows = json::array();
        for (const auto& buffer : usage.buffers) {
            rows.push_back({{"name", buffer.name},
                            {"size_bytes", buffer.size_bytes},
                            {"size_text", buffer.size_text},
                            {"allocated", buffer.allocated},
                            {"addr_begin", buffer.allocated ? json(buffer.addr_begin) : json()},
                            {"addr_end", buffer.allocated ? json(buffer.addr_end) : json()},
                            {"live_begin", buffer.live_begin},
                            {"live_end", buffer.live_end}});
        }
        buffers[usage.space] = std::move(rows);
    }
    return {
        {"name", function.name}, {"spaces", std::move(spaces)}, {"buffers", std::move(buffers)}};
}

nlohmann::json to_json(const Report& report, const BackendChoice& choice) {
    nlohmann::json view = report_json_header(report, choice);
    nlohmann::json& functions = view["functions"];
    for (const auto& function : report.functions) functions.push_back(function_json(function));
    return view;
}

nlohmann::json report_json_header(const Report& report, const BackendChoice& choice) {
    using nlohmann::json;
    bool dump = report.origin == Origin::PassDump;
    return {{"source", report.source},
            {"origin", dump ? "pass-dump" : "text-report"},
            {"dump_syntax", dump ? json(to_string(report.dump_syntax)) : json()},
            {"format_version",
             report.version == FormatVersion::Unknown ? json() : json(to_string(report.version))},
            {"backend", choice.backend ? json(to_string(*choice.backend)) : json()},
            {"backend_source", choice.source.empty() ? json() : json(choice.source)},
            {"backend_token", report.backend_token.empty() ? json() : json(report.backend_token)},
            {"pass", report.pass.empty() ? json() : json(report.pass)},
            {"functions_declared",
             report.functions_declared ? json(*report.functions_declared) : json()},
            {"functions", json::array()}};
}

}  // namespace ptune::memreport
