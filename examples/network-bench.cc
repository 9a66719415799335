/*
 * Network backend benchmark: a ring all-reduce driven directly on a backend
 * (no system layer), 1-D or hierarchical multi-dimensional (reduce-scatter up
 * the dimensions, all-gather back down), with several chunks in flight.
 * Prints simulated time, messages and wall-clock time per backend.
 *
 *   ./network-bench --dims=Ring:512 --bytes=67108864 --chunks=4
 *   ./network-bench --dims=Ring:16,FullyConnected:16,Switch:16 --chunks=2
 */

#include "ns3/analytical-backend.h"
#include "ns3/astra-command-line.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-input.h"
#include "ns3/boolean.h"
#include "ns3/command-line.h"
#include "ns3/flow-backend.h"
#include "ns3/network-backend-factory.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/topology.h"

#include <chrono>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// One phase of the hierarchical ring algorithm.
struct Phase
{
    uint32_t dim;   //!< dimension
    uint32_t steps; //!< ring steps (n - 1)
    uint64_t bytes; //!< bytes per message
};

/// Drives every NPU's ring steps for several independent chunks.
class RingDriver
{
  public:
    RingDriver(Ptr<NetworkBackend> be,
               const Topology& t,
               std::vector<Phase> phases,
               uint32_t chunks)
        : m_be(be),
          m_topo(t),
          m_phases(std::move(phases)),
          m_chunks(chunks)
    {
        const uint32_t n = t.GetNpuCount();
        m_state.assign(size_t(n) * chunks, State{});
        m_recv.assign(size_t(n) * chunks * m_phases.size(), 0);
    }

    void Start()
    {
        for (uint32_t c = 0; c < m_chunks; ++c)
        {
            for (uint32_t i = 0; i < m_topo.GetNpuCount(); ++i)
            {
                TrySend(i, c);
            }
        }
    }

    uint64_t messages{0}; //!< messages sent
    uint32_t finished{0}; //!< (npu, chunk) streams done

  private:
    struct State
    {
        uint32_t phase{0}; //!< current phase
        uint32_t step{0};  //!< next step to send in it
        bool waiting{false};
    };

    uint32_t Next(uint32_t npu, uint32_t dim) const
    {
        const auto peers = m_topo.GetDimensionPeers(npu, dim);
        const uint32_t c = m_topo.GetCoordinate(npu, dim);
        return peers[(c + 1) % peers.size()];
    }

    uint32_t& Recv(uint32_t npu, uint32_t chunk, uint32_t phase)
    {
        return m_recv[(size_t(npu) * m_chunks + chunk) * m_phases.size() + phase];
    }

    /// Send the next step if the previous step's data has arrived.
    void TrySend(uint32_t npu, uint32_t chunk)
    {
        State& s = m_state[size_t(npu) * m_chunks + chunk];
        // a phase ends when all its steps were sent and received
        while (s.phase < m_phases.size() && s.step >= m_phases[s.phase].steps)
        {
            if (Recv(npu, chunk, s.phase) < m_phases[s.phase].steps)
            {
                return;
            }
            ++s.phase;
            s.step = 0;
        }
        if (s.phase == m_phases.size())
        {
            if (!s.waiting)
            {
                s.waiting = true;
                ++finished;
            }
            return;
        }
        // step k needs k receives of this phase
        if (Recv(npu, chunk, s.phase) < s.step)
        {
            return;
        }
        const Phase& p = m_phases[s.phase];
        NetMessage m;
        m.src = npu;
        m.dst = Next(npu, p.dim);
        m.bytes = p.bytes;
        m.dim = int32_t(p.dim);
        m.tag = (uint64_t(chunk) << 40) | (uint64_t(s.phase) << 32) | s.step;
        ++s.step;
        ++messages;
        m_be->Send(m, nullptr, [this](const NetMessage& msg) {
            const uint32_t chunk = uint32_t(msg.tag >> 40);
            const uint32_t phase = uint32_t((msg.tag >> 32) & 0xff);
            ++Recv(msg.dst, chunk, phase);
            TrySend(msg.dst, chunk);
        });
        // a sender may go on once its data for the next step arrived
        TrySend(npu, chunk);
    }

    Ptr<NetworkBackend> m_be;
    const Topology& m_topo;
    std::vector<Phase> m_phases;
    uint32_t m_chunks;
    std::vector<State> m_state;
    std::vector<uint32_t> m_recv;
};

std::vector<DimensionSpec>
ParseDims(const std::string& spec, double bw, double lat)
{
    std::vector<DimensionSpec> dims;
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        const auto colon = item.find(':');
        DimensionSpec d;
        const std::string name = item.substr(0, colon);
        if (name != "Ring" && name != "Switch" && name != "FullyConnected")
        {
            throw InputError("--dims=" + spec + ": unknown dimension type '" + name +
                             "' (expected Ring, FullyConnected or Switch)" +
                             DidYouMean(name, {"Ring", "FullyConnected", "Switch"}));
        }
        d.type = name == "Ring" ? DimType::RING
                                : (name == "Switch" ? DimType::SWITCH : DimType::FULLY_CONNECTED);
        const uint64_t n = colon == std::string::npos
                               ? 0
                               : ParseUnsignedList(item.substr(colon + 1), "dims").front();
        if (n < 1 || n > 1000000)
        {
            throw InputError("--dims=" + spec + ": '" + item +
                             "' needs NPUs from 1 to 1000000 (Type:N)");
        }
        d.npus = uint32_t(n);
        d.bandwidthGBps = bw;
        d.latencyNs = lat;
        dims.push_back(d);
    }
    return dims;
}

} // namespace

namespace
{

/// The program (run by main through RunMain: bad input ends in a message and status 1).
int
Run(int argc, char* argv[])
{
    std::string dimSpec = "Ring:512";
    uint64_t bytes = 64ull << 20;
    uint32_t chunks = 4;
    double bw = 50;
    double lat = 500;
    std::string backends = "analytical,flow,flow-compat";
    std::string pattern = "allreduce";
    uint64_t intervalNs = 0;
    AstraCommandLine cmd(__FILE__);
    cmd.AddValue("dims", "dimensions, e.g. Ring:16,FullyConnected:16,Switch:16", dimSpec);
    cmd.AddValue("bytes", "all-reduce size", bytes);
    cmd.AddValue("chunks", "independent chunks in flight", chunks);
    cmd.AddValue("bw", "GB/s per link", bw);
    cmd.AddValue("latency", "ns per link", lat);
    cmd.AddValue("backends", "comma-separated: analytical, flow, flow-compat", backends);
    cmd.AddValue("interval", "FlowBackend UpdateInterval in ns (0: exact)", intervalNs);
    cmd.AddValue(
        "pattern",
        "allreduce (ring, hierarchical), alltoall (direct, one shot) or alltoallv (uneven sizes)",
        pattern);
    cmd.Parse(argc, argv);

    const Topology topo = Topology::FromDimensions(ParseDims(dimSpec, bw, lat));
    std::vector<Phase> phases;
    uint64_t m = bytes / chunks;
    for (uint32_t d = 0; d < topo.GetDimensionCount(); ++d)
    {
        const uint32_t n = topo.GetDimensions()[d].npus;
        m /= n;
        phases.push_back({d, n - 1, std::max<uint64_t>(1, m)}); // reduce-scatter
    }
    for (uint32_t d = topo.GetDimensionCount(); d-- > 0;)
    {
        const uint32_t n = topo.GetDimensions()[d].npus;
        phases.push_back({d, n - 1, std::max<uint64_t>(1, m)}); // all-gather
        m *= n;
    }
    std::cout << "topology " << dimSpec << ": " << topo.GetNpuCount() << " NPUs, "
              << topo.GetLinks().size() << " links; all-reduce " << bytes << " B in " << chunks
              << " chunks" << std::endl;
    // backends by name ("flow-compat": the flow backend with its Compat attribute), all
    // checked before the first runs
    std::vector<std::string> kinds;
    std::stringstream bs(backends);
    for (std::string kind; std::getline(bs, kind, ',');)
    {
        if (NetworkBackendFactory::NeedsFabric(kind == "flow-compat" ? "flow" : kind))
        {
            throw InputError("--backends: '" + kind +
                             "' needs a fabric; network-bench drives analytical and flow only");
        }
        kinds.push_back(kind);
    }
    for (const std::string& kind : kinds)
    {
        const bool compat = kind == "flow-compat";
        Ptr<NetworkBackend> be =
            NetworkBackendFactory::Create(compat ? "flow" : kind,
                                          std::make_shared<const Topology>(topo),
                                          compat);
        Ptr<FlowBackend> flow = DynamicCast<FlowBackend>(be);
        if (flow)
        {
            SetAttributeFromOption(*flow,
                                   "UpdateInterval",
                                   TimeValue(NanoSeconds(intervalNs)),
                                   "--interval=" + std::to_string(intervalNs));
        }
        RingDriver driver(be, topo, phases, chunks);
        const auto w0 = std::chrono::steady_clock::now();
        if (pattern == "alltoall" || pattern == "alltoallv")
        {
            // every NPU sends bytes / N to every other NPU at t = 0
            const uint32_t n = topo.GetNpuCount();
            Simulator::ScheduleNow([&]() {
                for (uint32_t s = 0; s < n; ++s)
                {
                    for (uint32_t d = 0; d < n; ++d)
                    {
                        if (s != d)
                        {
                            NetMessage m;
                            m.src = s;
                            m.dst = d;
                            m.bytes = std::max<uint64_t>(1, bytes / n);
                            if (pattern == "alltoallv")
                            {
                                m.bytes = m.bytes * (1 + (s * 31 + d * 17) % 13) / 7;
                            }
                            ++driver.messages;
                            be->Send(m, nullptr, nullptr);
                        }
                    }
                }
            });
        }
        else
        {
            Simulator::ScheduleNow([&]() { driver.Start(); });
        }
        Simulator::Run();
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        std::cout << std::left << std::setw(12) << kind << " simulated " << std::setw(12)
                  << Simulator::Now().GetNanoSeconds() << " ns, messages " << driver.messages
                  << ", streams done " << driver.finished << ", wall " << std::fixed
                  << std::setprecision(3) << wall << " s";
        if (flow && kind == "flow")
        {
            std::cout << ", recomputations " << flow->GetRecomputations() << " (flows visited "
                      << flow->GetRecomputedFlows() << ")";
        }
        std::cout << std::endl;
        Simulator::Destroy();
    }
    return 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return ns3::astra::RunMain(&Run, argc, argv);
}
