// The swimlane source: every capture of the run (records, deps.json, names) through the
// schedule pipeline of swimlane-analyze; one overview row per capture and run.

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "ptune/swimlane/pipeline.hpp"
#include "ptune/swimlane/report.hpp"
#include "source_util.hpp"
#include "sources.hpp"

namespace ptune::advise {

namespace {

class LoadedSwimlane : public LoadedSource {
  public:
    /// Analyses one loaded capture run by run. The first run of the first capture feeds the
    /// rules (an L3 tree holds one capture per rank and dispatch: their metrics would overwrite
    /// each other), every run gets an overview row.
    void add(const swimlane::CaptureFiles& files, const swimlane::LoadedCapture& loaded,
             const swimlane::AnalyzeOptions& options) {
        for (auto& result : swimlane::analyze_runs(loaded, options)) {
            const swimlane::Analysis& analysis = result.analysis;
            std::string label =
                files.label.empty() ? files.records.filename().string() : files.label;
            if (!result.run_label.empty()) label += " [" + result.run_label + "]";
            swimlane::add_to_overview(overview_, label, loaded, analysis);
            for (const auto& function : analysis.functions)
                kernel_time_us_[function.name] += function.exec_sum_us;
            if (!first_) {
                take_lanes(result);
                first_ = std::move(result);
            }
        }
    }

    void publish(rules::MetricStore& store) override {
        if (first_) swimlane::publish(*first_, store);
        double total = total_kernel_time();
        if (total <= 0) return;
        for (const auto& [name, time] : kernel_time_us_)
            store.set("kernel", name, "advise.kernel_time_share", time / total);
    }

    void contribute(Advice& advice, const rules::MetricStore&) override {
        if (first_) {
            advice.charts.window_begin_us = first_->analysis.window_start_us;
            advice.charts.window_end_us = first_->analysis.window_end_us;
            for (auto& lane : lanes_) advice.charts.lanes.push_back(std::move(lane));
        }
        add_top_kernels(advice.charts);
        if (overview_.table.rows.empty()) return;
        advice.sections.push_back({"swimlane",
                                   "Schedule (L2 swimlane)",
                                   std::move(overview_.table),
                                   std::move(overview_.data),
                                   {}});
    }

  private:
    void take_lanes(const swimlane::CaptureAnalysis& result) {
        std::map<int, render::svg::Lane> lanes;
        for (const auto& row : result.input.rows) {
            auto& lane = lanes[row.core];
            if (lane.name.empty()) lane.name = swimlane::lane_name(row.core, row.kind);
            lane.busy.emplace_back(row.start, row.end);
        }
        for (auto& [core, lane] : lanes) lanes_.push_back(std::move(lane));
    }

    double total_kernel_time() const {
        double total = 0;
        for (const auto& [name, time] : kernel_time_us_) total += time;
        return total;
    }

    // Per-function kernel time over every capture, longest first.
    void add_top_kernels(ChartData& charts) const {
        double total = total_kernel_time();
        std::vector<std::pair<std::string, double>> ordered(kernel_time_us_.begin(),
                                                            kernel_time_us_.end());
        std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
            return a.second != b.second ? a.second > b.second : a.first < b.first;
        });
        for (const auto& [name, time] : ordered) {
            if (charts.top_kernels.size() >= kTopRows) break;
            charts.top_kernels.push_back(
                {name, time,
                 fmt::format("{} µs ({})", stats::format_fixed(time, 2),
                             total > 0 ? stats::format_ratio(time / total) : "-"),
                 false});
        }
    }

    swimlane::Overview overview_ = swimlane::make_overview();
    std::map<std::string, double> kernel_time_us_;
    std::optional<swimlane::CaptureAnalysis> first_;
    std::vector<render::svg::Lane> lanes_;
};

class SwimlaneSource : public Source {
  public:
    std::vector<ArtifactKind> kinds() const override {
        return {ArtifactKind::SwimlaneRecords, ArtifactKind::Deps, ArtifactKind::NameMap};
    }

    std::unique_ptr<LoadedSource> load(SourceContext& context) const override {
        auto records = context.inventory.of(ArtifactKind::SwimlaneRecords);
        if (records.empty()) return nullptr;
        swimlane::LoadRequest request;
        request.input = context.inventory.run_dir;
        auto discovery = swimlane::find_captures(request);
        if (!discovery) {
            // The inventory looks deeper than the swimlane layouts (a directory above several
            // runs): the capture is then read where the inventory found it.
            request.input = records.front()->path.parent_path().string();
            discovery = swimlane::find_captures(request);
        }
        if (!discovery) {
            context.diagnostics.warn(discovery.error().file, 0, discovery.error().message);
            return nullptr;
        }
        swimlane::AnalyzeOptions options = swimlane::analyze_options(context.catalogue);
        auto result = std::make_unique<LoadedSwimlane>();
        for (const auto& files : discovery->captures) {
            auto loaded = swimlane::load_capture(files, request, context.diagnostics);
            if (!loaded) {
                context.diagnostics.warn(loaded.error().file, loaded.error().line,
                                         loaded.error().message);
                continue;
            }
            result->add(files, *loaded, options);
        }
        return result;
    }
};

}  // namespace

std::unique_ptr<Source> make_swimlane_source() {
    return std::make_unique<SwimlaneSource>();
}

}  // namespace ptune::advise
