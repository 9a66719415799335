#include "dimension-scheduler.h"

#include <algorithm>
#include <numeric>

namespace ns3
{
namespace astra
{

namespace
{

/// Baseline: every chunk visits the dimensions in the planner's order.
class BaselineScheduler : public DimensionScheduler
{
  public:
    const char* GetName() const override
    {
        return "baseline";
    }

    void Schedule(PhaseOp,
                  const std::vector<ScheduledDim>& dims,
                  const std::vector<uint64_t>& chunkBytes,
                  std::vector<std::vector<uint32_t>>& orders) const override
    {
        std::vector<uint32_t> order;
        for (const auto& d : dims)
        {
            order.push_back(d.dim);
        }
        orders.assign(chunkBytes.size(), order);
    }
};

} // namespace

DimensionScheduler::~DimensionScheduler() = default;

const DimensionScheduler&
DimensionScheduler::Get(InterDimScheduling kind)
{
    static const BaselineScheduler baseline;
    static const ThemisScheduler themis;
    return kind == InterDimScheduling::THEMIS ? static_cast<const DimensionScheduler&>(themis)
                                              : baseline;
}

const char*
ThemisScheduler::GetName() const
{
    return "themis";
}

void
ThemisScheduler::Schedule(PhaseOp op,
                          const std::vector<ScheduledDim>& dims,
                          const std::vector<uint64_t>& chunkBytes,
                          std::vector<std::vector<uint32_t>>& orders) const
{
    const size_t nd = dims.size();
    const bool gather = op == PhaseOp::ALL_GATHER;
    std::vector<double> load(nd, 0.0); // ns of transfer charged to each dimension
    // the charge of b bytes on dimension i
    auto charge = [&](size_t i, double b) {
        const double n = dims[i].members;
        const double bw = dims[i].bytesPerNs > 0 ? dims[i].bytesPerNs : 1.0;
        return gather ? b * (n - 1) / bw : b * (n - 1) / n / bw;
    };
    orders.clear();
    orders.reserve(chunkBytes.size());
    std::vector<size_t> idx(nd);
    for (uint64_t bytes : chunkBytes)
    {
        // least loaded first (ties: the planner's order); all-gather: most loaded first
        std::iota(idx.begin(), idx.end(), 0);
        std::stable_sort(idx.begin(), idx.end(), [&load](size_t a, size_t b) {
            return load[a] < load[b];
        });
        if (gather)
        {
            std::reverse(idx.begin(), idx.end());
        }
        // balanced enough: keep the planner's order
        const size_t least = gather ? idx.back() : idx.front();
        const double spread = *std::max_element(load.begin(), load.end()) -
                              *std::min_element(load.begin(), load.end());
        const double room = spread / charge(least, 1.0); // bytes that would even it out
        if (room < double(bytes) / 16)
        {
            std::iota(idx.begin(), idx.end(), 0);
        }
        std::vector<uint32_t> order;
        double b = double(bytes);
        for (size_t i : idx)
        {
            order.push_back(dims[i].dim);
            load[i] += charge(i, b);
            b = gather ? b * dims[i].members : b / dims[i].members;
        }
        orders.push_back(std::move(order));
    }
}

} // namespace astra
} // namespace ns3
