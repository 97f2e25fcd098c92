#include "ptune/pmu/parser.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ptune/core/io.hpp"
#include "ptune/core/text.hpp"

namespace ptune::pmu {

namespace {

// The counter columns of the 14 upstream headers (simpler 6ebaf771, pmu_profiling.h), from
// fixtures/pmu/headers_by_arch_and_event_type.tsv.
struct KnownHeader {
    Arch arch;
    int event_type;
    std::string_view counters;
};

constexpr KnownHeader kKnownHeaders[] = {
    {Arch::A2A3, 1,
     "cube_fp16_exec,cube_int8_exec,vec_fp32_exec,vec_fp16_128lane_exec,vec_fp16_64lane_exec,"
     "vec_int32_exec,vec_misc_exec"},
    {Arch::A2A3, 2,
     "vec_busy_cycles,cube_busy_cycles,scalar_busy_cycles,mte1_busy_cycles,mte2_busy_cycles,"
     "mte3_busy_cycles,icache_miss,icache_req"},
    {Arch::A2A3, 4,
     "ub_read_req,ub_write_req,l1_read_req,l1_write_req,l2_read_req,l2_write_req,main_read_req,"
     "main_write_req"},
    {Arch::A2A3, 5,
     "l0a_read_req,l0a_write_req,l0b_read_req,l0b_write_req,l0c_read_req,l0c_write_req"},
    {Arch::A2A3, 6, "bankgroup_stall_cycles,bank_stall_cycles,vec_resc_conflict_cycles"},
    {Arch::A2A3, 7,
     "ub_read_bw_mte,l2_write_bw,main_mem_write_bw,ub_write_bw_mte,ub_read_bw_vector,"
     "ub_write_bw_vector,ub_read_bw_scalar,ub_write_bw_scalar"},
    {Arch::A2A3, 8,
     "write_cache_hit,write_cache_miss_allocate,r0_read_cache_hit,r0_read_cache_miss_allocate,"
     "r1_read_cache_hit,r1_read_cache_miss_allocate"},
    {Arch::A5, 1, "cube_fp_instr_busy,cube_int_instr_busy"},
    {Arch::A5, 2,
     "pmu_idc_aic_vec_busy_o,cube_instr_busy,scalar_instr_busy,mte1_instr_busy,mte2_instr_busy,"
     "mte3_instr_busy,icache_req,icache_miss,pmu_fix_instr_busy"},
    {Arch::A5, 4,
     "bif_sc_pmu_read_main_instr_core,bif_sc_pmu_write_main_instr_core,pmu_aiv_ext_rd_ub_instr,"
     "ub_pmu_vec_rd_ub_acc,pmu_aiv_ext_wr_ub_instr,ub_pmu_vec_wr_ub_acc,pmu_rd_l1_instr,"
     "pmu_wr_l1_instr"},
    {Arch::A5, 5,
     "cube_sc_pmu_read_l0a_instr,pmu_wr_l0a_instr,cube_sc_pmu_read_l0b_instr,pmu_wr_l0b_instr,"
     "fixp_rd_l0c_instr,cube_sc_pmu_read_l0c_instr,cube_sc_pmu_write_l0c_instr"},
    {Arch::A5, 6,
     "stu_pmu_wctl_ub_cflt,ldu_pmu_ib_ub_cflt,pmu_idc_aic_vec_instr_vf_busy_o,idu_pmu_ins_iss_cnt"},
    {Arch::A5, 7,
     "pmu_rd_acc_ub_instr_p,pmu_wr_acc_ub_instr_p,pmu_fix_wr_ub_instr,"
     "mte_sc_pmu_write_acc_ub_instr_0,mte_sc_pmu_read_acc_ub_instr_0,ub_pmu_vec_rd_ub_acc,"
     "ub_pmu_vec_wr_ub_acc"},
    {Arch::A5, 8,
     "bif_sc_pmu_ar_close_l2_hit_core,bif_sc_pmu_ar_close_l2_miss_core,"
     "bif_sc_pmu_ar_close_l2_victim_core,bif_sc_pmu_aw_close_l2_hit_core,"
     "bif_sc_pmu_aw_close_l2_miss_core,bif_sc_pmu_aw_close_l2_victim_core"},
};

// Canonical pipe ← column name, both architectures (pmu.md §5).
struct PipeColumn {
    std::string_view column;
    Pipe pipe;
};
constexpr PipeColumn kPipeColumns[] = {
    {"vec_busy_cycles", Pipe::Vec},        {"pmu_idc_aic_vec_busy_o", Pipe::Vec},
    {"cube_busy_cycles", Pipe::Cube},      {"cube_instr_busy", Pipe::Cube},
    {"scalar_busy_cycles", Pipe::Scalar},  {"scalar_instr_busy", Pipe::Scalar},
    {"mte1_busy_cycles", Pipe::Mte1},      {"mte1_instr_busy", Pipe::Mte1},
    {"mte2_busy_cycles", Pipe::Mte2},      {"mte2_instr_busy", Pipe::Mte2},
    {"mte3_busy_cycles", Pipe::Mte3},      {"mte3_instr_busy", Pipe::Mte3},
    {"pmu_fix_instr_busy", Pipe::Fixpipe},
};

constexpr std::size_t kPrefixWidth = kFixedPrefix.size();
// A row has at most 17 numbers; anything this long is not a pmu.csv row.
constexpr std::size_t kMaxLineBytes = 1u << 20;

// Parses one data row into `row` and appends its counters; returns an error message or "".
std::string parse_row(const std::vector<std::string_view>& fields, const HeaderInfo& header,
                      Row& row, std::vector<std::uint64_t>& counters) {
    auto thread_id = text::parse_int(fields[0]);
    if (!thread_id) return fmt::format("thread_id '{}' is not an integer", fields[0]);
    auto core_id = text::parse_int(fields[1]);
    if (!core_id) return fmt::format("core_id '{}' is not an integer", fields[1]);
    std::string_view task_text = text::trim(fields[2]);
    if (task_text.size() < 3 || task_text.substr(0, 2) != "0x" || task_text.size() > 18) {
        return fmt::format("task_id '{}' is not 0x + hex digits", fields[2]);
    }
    auto task_id = text::parse_hex(task_text.substr(2));
    if (!task_id) return fmt::format("task_id '{}' is not 0x + hex digits", fields[2]);
    auto func_id = text::parse_uint(fields[3]);
    if (!func_id || *func_id > UINT32_MAX)
        return fmt::format("func_id '{}' is not a uint32", fields[3]);
    auto core_type = text::parse_int(fields[4]);
    if (!core_type || (*core_type != 0 && *core_type != 1)) {
        return fmt::format("core_type '{}' is neither 0 (AIC) nor 1 (AIV)", fields[4]);
    }
    auto total = text::parse_uint(fields[5]);
    if (!total) return fmt::format("pmu_total_cycles '{}' is not an unsigned integer", fields[5]);
    std::size_t width = header.counter_names.size();
    std::size_t first = counters.size();
    for (std::size_t i = 0; i < width; ++i) {
        auto value = text::parse_uint(fields[kPrefixWidth + i]);
        if (!value) {
            counters.resize(first);
            return fmt::format("counter {} '{}' is not an unsigned integer",
                               header.counter_names[i], fields[kPrefixWidth + i]);
        }
        counters.push_back(*value);
    }
    if (header.has_event_type_column) {
        auto event_type = text::parse_int(fields.back());
        if (!event_type) {
            counters.resize(first);
            return fmt::format("event_type '{}' is not an integer", fields.back());
        }
        row.event_type = *event_type;
    } else {
        row.event_type = header.event_type.value_or(0);
    }
    row.thread_id = *thread_id;
    row.core_id = *core_id;
    row.task_id = *task_id;
    row.func_id = static_cast<std::uint32_t>(*func_id);
    row.core_type = *core_type == 0 ? CoreType::Aic : CoreType::Aiv;
    row.total_cycles = *total;
    return "";
}

}  // namespace

Result<HeaderInfo> parse_header(std::string_view line) {
    std::vector<std::string_view> columns = text::split(text::trim(line), ',');
    for (auto& column : columns) column = text::trim(column);
    if (columns.size() < kPrefixWidth ||
        !std::equal(kFixedPrefix.begin(), kFixedPrefix.end(), columns.begin())) {
        return Error{fmt::format("not a pmu.csv: the header must start with {}",
                                 fmt::join(kFixedPrefix, ",")),
                     "", 1, ExitCode::InputError};
    }
    HeaderInfo header;
    header.has_event_type_column = columns.back() == "event_type";
    std::size_t end = columns.size() - (header.has_event_type_column ? 1 : 0);
    std::string joined;
    for (std::size_t i = kPrefixWidth; i < end; ++i) {
        header.counter_names.emplace_back(columns[i]);
        if (!joined.empty()) joined += ',';
        joined += columns[i];
    }
    if (header.has_event_type_column) {
        for (const auto& known : kKnownHeaders) {
            if (known.counters == joined) {
                header.arch = known.arch;
                header.event_type = known.event_type;
                header.known = true;
                break;
            }
        }
    }
    for (std::size_t i = 0; i < header.counter_names.size(); ++i) {
        const std::string& name = header.counter_names[i];
        for (const auto& mapping : kPipeColumns) {
            if (mapping.column == name)
                header.pipe_column[static_cast<std::size_t>(mapping.pipe)] = i;
        }
        if (name == "icache_miss") header.icache_miss_column = i;
        if (name == "icache_req") header.icache_req_column = i;
    }
    return header;
}

namespace {

Result<PmuTable> parse_lines(io::LineReader& reader, const std::string& source,
                             Diagnostics& diagnostics) {
    PmuTable table;
    table.source = source;
    std::string_view line;
    bool have_header = false;
    std::size_t expected_fields = 0;
    while (reader.next(line)) {
        std::size_t number = reader.line_number();
        if (!have_header) {
            if (number == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
            if (text::trim(line).empty()) {
                return Error{"not a pmu.csv: the first line is empty (expected the header)", source,
                             number, ExitCode::InputError};
            }
            auto header = parse_header(line);
            if (!header) {
                Error error = header.error();
                error.file = source;
                error.line = number;
                return error;
            }
            table.header = std::move(*header);
            if (!table.header.known) {
                diagnostics.warn(source, number,
                                 "unknown pmu.csv header (not one of the 14 upstream headers); "
                                 "counters are reported raw");
            }
            expected_fields = kPrefixWidth + table.header.counter_names.size() +
                              (table.header.has_event_type_column ? 1 : 0);
            have_header = true;
            continue;
        }
        if (text::trim(line).empty()) continue;
        if (reader.truncated()) {
            diagnostics.warn(source, number, "line longer than 1 MiB; skipped");
            continue;
        }
        std::vector<std::string_view> fields = text::split(line, ',');
        if (fields.size() != expected_fields) {
            diagnostics.warn(source, number,
                             fmt::format("expected {} fields, found {}; row skipped",
                                         expected_fields, fields.size()));
            continue;
        }
        Row row;
        row.line = number;
        std::string problem = parse_row(fields, table.header, row, table.counters);
        if (!problem.empty()) {
            diagnostics.warn(source, number, text::sanitize_utf8(problem) + "; row skipped");
            continue;
        }
        if (table.header.event_type && row.event_type != *table.header.event_type) {
            diagnostics.warn(source, number,
                             fmt::format("event_type {} differs from the header's group {}",
                                         row.event_type, *table.header.event_type));
        }
        table.rows.push_back(row);
    }
    if (!have_header) {
        return Error{"empty file (no pmu.csv header)", source, 0, ExitCode::InputError};
    }
    if (!table.header.event_type && !table.rows.empty()) {
        table.header.event_type = static_cast<int>(table.rows.front().event_type);
    }
    return table;
}

}  // namespace

Result<PmuTable> parse_pmu_csv(std::istream& in, const std::string& source,
                               Diagnostics& diagnostics) {
    io::LineReader reader(in, kMaxLineBytes);
    return parse_lines(reader, source, diagnostics);
}

Result<PmuTable> parse_pmu_csv(std::string_view text, const std::string& source,
                               Diagnostics& diagnostics) {
    io::LineReader reader(text);
    return parse_lines(reader, source, diagnostics);
}

}  // namespace ptune::pmu
