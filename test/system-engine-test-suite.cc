/*
 * The per-NPU engine and the system layer's bookkeeping: dependencies,
 * overlap vs the reference's one-compute-one-communication limit, SEND/RECV
 * matching in both orders, compute (replay, roofline), memory models,
 * communicator-group placement, scheduling policies, errors and hang reports.
 */

#include "system-test-util.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

using namespace ns3;
using namespace ns3::astra;
using namespace ns3::astra::systest;

namespace
{

const double kGbps = 64.0 * 1e9 / 1073741824.0; // 64 bytes/ns
const double kLat = 500;

/// Small graph builder
struct G
{
    std::shared_ptr<WorkloadGraph> g = std::make_shared<WorkloadGraph>();
    uint64_t next = 1;

    WorkloadNode& Add(NodeKind k, std::vector<uint64_t> deps = {}, std::vector<uint64_t> ctrl = {})
    {
        WorkloadNode n;
        n.id = next++;
        n.kind = k;
        n.name = std::string(NodeKindName(k)) + "_" + std::to_string(n.id);
        n.dataDeps = deps;
        n.ctrlDeps = ctrl;
        g->nodes.push_back(n);
        return g->nodes.back();
    }

    uint64_t Comp(uint64_t ns, std::vector<uint64_t> deps = {}, std::vector<uint64_t> ctrl = {})
    {
        auto& n = Add(NodeKind::COMP, deps, ctrl);
        n.durationNs = ns;
        return n.id;
    }

    uint64_t Coll(CollType t,
                  uint64_t bytes,
                  std::string group = "",
                  std::vector<uint64_t> deps = {})
    {
        auto& n = Add(NodeKind::COMM_COLL, deps);
        n.name = "coll_" + group + "_" + std::to_string(int(t)); // same name on every rank
        n.collType = t;
        n.commSize = bytes;
        n.pgName = group;
        return n.id;
    }

    uint64_t Send(int32_t dst, uint64_t bytes, int64_t tag, std::vector<uint64_t> deps = {})
    {
        auto& n = Add(NodeKind::COMM_SEND, deps);
        n.commDst = dst;
        n.commSize = bytes;
        n.commTag = tag;
        return n.id;
    }

    uint64_t Recv(int32_t src, uint64_t bytes, int64_t tag, std::vector<uint64_t> deps = {})
    {
        auto& n = Add(NodeKind::COMM_RECV, deps);
        n.commSrc = src;
        n.commSize = bytes;
        n.commTag = tag;
        return n.id;
    }

    std::shared_ptr<const WorkloadGraph> Done(uint32_t rank)
    {
        g->rank = rank;
        g->file = "test." + std::to_string(rank);
        g->BuildIndex();
        return g;
    }
};

SystemParams
P()
{
    return Params(1, 1, 10, 0, false);
}

/// Data and control dependencies, overlap and the reference limit
class DepsCase : public TestCase
{
  public:
    DepsCase()
        : TestCase("dependencies, overlap, ReferenceHwLimits")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = Topo1D(DimType::RING, 2, kGbps, kLat);
        // chain: COMP 1000 -> (data) COMP 2000 -> (ctrl) COMP 500 = 3500
        {
            Graphs gs;
            for (uint32_t r = 0; r < 2; ++r)
            {
                G g;
                uint64_t a = g.Comp(1000);
                uint64_t b = g.Comp(2000, {a});
                g.Comp(500, {}, {b});
                gs.push_back(g.Done(r));
            }
            auto res = AstraSimHelper::Run(topo, P(), gs);
            NS_TEST_EXPECT_MSG_EQ(res.MaxFinish(), 3500, "chain");
            NS_TEST_EXPECT_MSG_EQ(res.stats[0].compute.GetNanoSeconds(), 3500, "compute time");
        }
        // two independent COMPs overlap by default; the reference limit serializes them
        {
            Graphs gs;
            for (uint32_t r = 0; r < 2; ++r)
            {
                G g;
                g.Comp(1000);
                g.Comp(3000);
                gs.push_back(g.Done(r));
            }
            auto res = AstraSimHelper::Run(topo, P(), gs);
            NS_TEST_EXPECT_MSG_EQ(res.MaxFinish(), 3000, "overlap");
            AstraRunOptions o;
            o.referenceHwLimits = true;
            res = AstraSimHelper::Run(topo, P(), gs, o);
            NS_TEST_EXPECT_MSG_EQ(res.MaxFinish(), 4000, "one COMP at a time");
        }
        // COMP and an independent collective overlap (also under the reference limit):
        // exposed communication = finish - compute
        {
            Graphs gs;
            for (uint32_t r = 0; r < 2; ++r)
            {
                G g;
                g.Comp(100000);
                g.Coll(CollType::ALL_REDUCE, 1 << 20);
                gs.push_back(g.Done(r));
            }
            // ring of 2, one chunk: 2 steps of (500 + 524288/64 + 10) = 2 x 8702
            auto res = AstraSimHelper::Run(topo, P(), gs);
            NS_TEST_EXPECT_MSG_EQ(res.MaxFinish(), 100000, "collective hidden under compute");
            NS_TEST_EXPECT_MSG_EQ(res.stats[0].exposedComm.GetNanoSeconds(), 0, "nothing exposed");
            NS_TEST_EXPECT_MSG_EQ(res.stats[0].commBusy.GetNanoSeconds(), 2 * 8702, "comm busy");
        }
        // collective after compute: exposed = collective time
        {
            Graphs gs;
            for (uint32_t r = 0; r < 2; ++r)
            {
                G g;
                uint64_t c = g.Comp(1000);
                g.Coll(CollType::ALL_REDUCE, 1 << 20, "", {c});
                gs.push_back(g.Done(r));
            }
            auto res = AstraSimHelper::Run(topo, P(), gs);
            NS_TEST_EXPECT_MSG_EQ(res.MaxFinish(), 1000 + 2 * 8702, "serial");
            NS_TEST_EXPECT_MSG_EQ(res.stats[1].exposedComm.GetNanoSeconds(), 2 * 8702, "exposed");
        }
    }
};

/// SEND/RECV on (src, dst, tag), receive posted before or after the data
class P2PCase : public TestCase
{
  public:
    P2PCase()
        : TestCase("SEND and RECV matching, both orders, tags")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = Topo1D(DimType::RING, 4, kGbps, kLat);
        const int64_t t = 500 + 65536 / 64; // neighbour, 64 KiB
        // NPU 0 sends tag 7 at 0 and tag 8 after 10 us; NPU 1 posts tag 8 first, tag 7 late
        Graphs gs;
        {
            G g;
            g.Send(1, 65536, 7);
            uint64_t c = g.Comp(10000);
            g.Send(1, 65536, 8, {c});
            gs.push_back(g.Done(0));
        }
        {
            G g;
            uint64_t r8 = g.Recv(0, 65536, 8); // posted before its data
            uint64_t c = g.Comp(20000);
            uint64_t r7 = g.Recv(0, 65536, 7, {c}); // data waited since t
            g.Comp(1, {r8, r7});
            gs.push_back(g.Done(1));
        }
        for (uint32_t r = 2; r < 4; ++r)
        {
            gs.push_back(G().Done(r));
        }
        auto res = AstraSimHelper::Run(topo, P(), gs);
        NS_TEST_ASSERT_MSG_EQ(res.error, "", "no error");
        NS_TEST_EXPECT_MSG_EQ(res.finishNs[0], 10000 + t, "sender done when delivered");
        NS_TEST_EXPECT_MSG_EQ(res.finishNs[1], 20001, "receiver: late recv consumes early data");
        NS_TEST_EXPECT_MSG_EQ(res.finishNs[2], 0, "empty graph finishes at 0");
    }
};

/// Unmatched RECV: hang report names NPU and peer; bad groups give named errors
class ErrorsCase : public TestCase
{
  public:
    ErrorsCase()
        : TestCase("hang report, unknown group, non-member, dangling deps")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = Topo1D(DimType::RING, 4, kGbps, kLat);
        {
            Graphs gs;
            for (uint32_t r = 0; r < 4; ++r)
            {
                G g;
                if (r == 2)
                {
                    g.Recv(3, 100, 42);
                }
                gs.push_back(g.Done(r));
            }
            // checked before the run (default): the RECV without its SEND is named
            auto checked = AstraSimHelper::Run(topo, P(), gs);
            NS_TEST_EXPECT_MSG_NE(checked.error.find("its RECV from NPU 3 (tag 42) has no "
                                                     "matching SEND"),
                                  std::string::npos,
                                  checked.error);
            NS_TEST_EXPECT_MSG_EQ(checked.finishNs.size(), 0u, "nothing ran");
            // the run-time safety net: the hang report names NPU and peer
            AstraRunOptions o;
            o.checkWorkloads = false;
            auto res = AstraSimHelper::Run(topo, P(), gs, o);
            NS_TEST_EXPECT_MSG_EQ(res.unfinished.size(), 1u, "one NPU hangs");
            NS_TEST_EXPECT_MSG_EQ(res.unfinished[0], 2u, "NPU 2");
            NS_TEST_EXPECT_MSG_NE(res.pending.find("RECV from NPU 3 tag 42"),
                                  std::string::npos,
                                  "names the peer: " << res.pending);
        }
        {
            // a collective only some members issue: hang report names who is waited on
            Graphs gs;
            for (uint32_t r = 0; r < 4; ++r)
            {
                G g;
                if (r != 3)
                {
                    g.Coll(CollType::ALL_REDUCE, 4096);
                }
                gs.push_back(g.Done(r));
            }
            // checked before the run: the member that never issues it is named
            auto checked = AstraSimHelper::Run(topo, P(), gs);
            NS_TEST_EXPECT_MSG_NE(checked.error.find("(NPU 3) 0 time(s); it has no nodes at all"),
                                  std::string::npos,
                                  checked.error);
            AstraRunOptions o;
            o.checkWorkloads = false;
            auto res = AstraSimHelper::Run(topo, P(), gs, o);
            NS_TEST_EXPECT_MSG_EQ(res.unfinished.size(), 3u, "three NPUs hang");
            NS_TEST_EXPECT_MSG_NE(res.pending.find("not yet issued by NPU(s) 3"),
                                  std::string::npos,
                                  "NPU 0 waits on NPU 3: " << res.pending);
        }
        {
            Graphs gs;
            for (uint32_t r = 0; r < 4; ++r)
            {
                G g;
                g.Coll(CollType::ALL_REDUCE, 4096, "42");
                gs.push_back(g.Done(r));
            }
            auto res = AstraSimHelper::Run(topo, P(), gs);
            NS_TEST_EXPECT_MSG_NE(res.error.find("unknown communicator group '42'"),
                                  std::string::npos,
                                  res.error);
        }
        {
            Graphs gs;
            for (uint32_t r = 0; r < 4; ++r)
            {
                G g;
                g.Coll(CollType::ALL_REDUCE, 4096, "1");
                gs.push_back(g.Done(r));
            }
            AstraRunOptions o;
            o.commGroups = {{"1", {0, 1}}};
            auto res = AstraSimHelper::Run(topo, P(), gs, o);
            NS_TEST_EXPECT_MSG_NE(res.error.find("is not a member"), std::string::npos, res.error);
        }
        {
            Graphs gs;
            for (uint32_t r = 0; r < 4; ++r)
            {
                G g;
                g.Comp(10, {}, {999});
                gs.push_back(g.Done(r));
            }
            auto res = AstraSimHelper::Run(topo, P(), gs);
            NS_TEST_EXPECT_MSG_NE(res.error.find("depends on 999"), std::string::npos, res.error);
        }
        {
            auto mem = CreateObject<AnalyticalRemoteMemory>();
            Graphs gs;
            for (uint32_t r = 0; r < 4; ++r)
            {
                G g;
                g.Add(NodeKind::MEM_LOAD).tensorSize = 100;
                gs.push_back(g.Done(r));
            }
            AstraRunOptions o;
            o.memory = mem;
            auto res = AstraSimHelper::Run(topo, P(), gs, o);
            NS_TEST_EXPECT_MSG_NE(res.error.find("NO_MEMORY_EXPANSION"),
                                  std::string::npos,
                                  res.error);
        }
    }
};

/// Roofline and replay compute
class ComputeCase : public TestCase
{
  public:
    ComputeCase()
        : TestCase("compute: replay, roofline, compute-scale")
    {
    }

  private:
    void DoRun() override
    {
        SystemParams p = P();
        p.peakPerfTflops = 100;  // 1e14 FLOP/s
        p.localMemBwGBps = 1000; // 1e12 B/s
        WorkloadNode n;
        n.kind = NodeKind::COMP;
        n.numOps = 1000000000;
        n.hasNumOps = true;
        n.tensorSize = 1000000; // intensity 1000 -> 1e15 > peak: compute bound
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::ComputeTime(n, p).GetNanoSeconds(),
                              10000,
                              "compute bound: 1e9 / 1e14 s");
        n.tensorSize = 100000000; // intensity 10 -> 1e13: memory bound
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::ComputeTime(n, p).GetNanoSeconds(),
                              100000,
                              "memory bound");
        n.durationMicros = 7; // replay wins when roofline is not enabled
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::ComputeTime(n, p).GetNanoSeconds(),
                              7000,
                              "replay");
        p.rooflineEnabled = true;
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::ComputeTime(n, p).GetNanoSeconds(),
                              100000,
                              "roofline-enabled overrides replay");
        p.rooflineEnabled = false;
        p.computeScale = 2;
        NS_TEST_EXPECT_MSG_EQ(AstraSimApplication::ComputeTime(n, p).GetNanoSeconds(),
                              14000,
                              "compute-scale");
    }
};

/// Memory models: local, per-node FIFO, per-NPU, pool
class MemoryCase : public TestCase
{
  public:
    MemoryCase()
        : TestCase("memory: local, PER_NODE, PER_NPU, MEMORY_POOL")
    {
    }

  private:
    int64_t Run(Ptr<MemoryModel> mem, uint32_t npu)
    {
        auto topo = Topo1D(DimType::RING, 4, kGbps, kLat);
        Graphs gs;
        for (uint32_t r = 0; r < 4; ++r)
        {
            G g;
            g.Add(NodeKind::MEM_LOAD).tensorSize = 100000;
            gs.push_back(g.Done(r));
        }
        AstraRunOptions o;
        o.memory = mem;
        SystemParams p = P();
        p.localMemBwGBps = 100;
        auto res = AstraSimHelper::Run(topo, p, gs, o);
        NS_TEST_EXPECT_MSG_EQ(res.error, "", "no error");
        return npu == UINT32_MAX ? res.MaxFinish() : res.finishNs[npu];
    }

    void DoRun() override
    {
        // local memory of the system config: 100000 B / 100 B/ns
        NS_TEST_EXPECT_MSG_EQ(Run(nullptr, 0), 1000, "local");
        auto make = [](MemoryType t) {
            auto m = CreateObject<AnalyticalRemoteMemory>();
            m->SetAttribute("MemoryType", EnumValue(static_cast<int>(t)));
            m->SetAttribute("Latency", DoubleValue(500));
            m->SetAttribute("Bandwidth", DoubleValue(50)); // 2000 ns for 100 kB
            m->SetAttribute("NpusPerNode", UintegerValue(2));
            return m;
        };
        NS_TEST_EXPECT_MSG_EQ(Run(make(MemoryType::PER_NPU_MEMORY_EXPANSION), UINT32_MAX),
                              2500,
                              "private");
        NS_TEST_EXPECT_MSG_EQ(Run(make(MemoryType::PER_NODE_MEMORY_EXPANSION), UINT32_MAX),
                              5000,
                              "two NPUs per node share a FIFO");
        NS_TEST_EXPECT_MSG_EQ(Run(make(MemoryType::MEMORY_POOL), UINT32_MAX),
                              10000,
                              "one FIFO for all four");
    }
};

/// Communicator groups: one dimension, a sub-grid, an irregular set (flat), id "0"
class GroupsCase : public TestCase
{
  public:
    GroupsCase()
        : TestCase("communicator group placement")
    {
    }

  private:
    void DoRun() override
    {
        // 4 x 2 (dim 0 Ring 4, dim 1 Ring 2): NPU id = c0 + 4 c1
        auto topo = TopoDims({{DimType::RING, 4, kGbps, kLat}, {DimType::RING, 2, kGbps, kLat}});
        std::map<std::string, std::vector<uint32_t>> groups = {
            {"0", {0, 1, 2, 3}}, // dimension 0 line (id 0 is a real group here)
            {"5", {1, 5}},       // dimension 1 line
            {"7", {0, 1, 4, 5}}, // 2 x 2 sub-grid
            {"9", {0, 1, 6}},    // irregular
        };
        Graphs gs;
        for (uint32_t r = 0; r < 8; ++r)
        {
            G g;
            for (const auto& kv : groups)
            {
                if (std::find(kv.second.begin(), kv.second.end(), r) != kv.second.end())
                {
                    g.Coll(CollType::ALL_REDUCE, 65536, kv.first);
                }
            }
            gs.push_back(g.Done(r));
        }
        AstraRunOptions o;
        o.commGroups = groups;
        auto res = AstraSimHelper::Run(topo, P(), gs, o);
        NS_TEST_ASSERT_MSG_EQ(res.error, "", "no error");
        NS_TEST_EXPECT_MSG_EQ(res.unfinished.size(), 0u, "all finish");
        std::map<std::string, std::string> placement;
        std::map<std::string, uint32_t> members;
        for (const auto& r : res.records)
        {
            placement[r.group] = r.placement;
            members[r.group] = r.members;
        }
        NS_TEST_EXPECT_MSG_EQ(placement["0"], "ALL_REDUCE@dim0:ring", "group 0 on dim 0");
        NS_TEST_EXPECT_MSG_EQ(members["0"], 4u, "4 members");
        NS_TEST_EXPECT_MSG_EQ(placement["5"], "ALL_REDUCE@dim1:ring", "group 5 on dim 1");
        NS_TEST_EXPECT_MSG_EQ(placement["7"],
                              "ALL_REDUCE@dim0:ring ALL_REDUCE@dim1:ring",
                              "sub-grid: hierarchical over both dims");
        NS_TEST_EXPECT_MSG_EQ(members["7"], 4u, "2 x 2");
        NS_TEST_EXPECT_MSG_EQ(placement["9"], "ALL_REDUCE@flat:ring", "irregular: flat");
        NS_TEST_EXPECT_MSG_EQ(members["9"], 3u, "3 members");
        NS_TEST_EXPECT_MSG_EQ(res.records.size(), 4u, "one record per collective");
        // involved_dim restricts the world group to dimension 1 lines: 4 instances
        Graphs gi;
        for (uint32_t r = 0; r < 8; ++r)
        {
            G g;
            auto& n = g.Add(NodeKind::COMM_COLL);
            n.collType = CollType::ALL_REDUCE;
            n.commSize = 65536;
            n.involvedDim = {false, true};
            gi.push_back(g.Done(r));
        }
        auto ri = AstraSimHelper::Run(topo, P(), gi);
        NS_TEST_EXPECT_MSG_EQ(ri.records.size(), 4u, "four dimension-1 lines");
        NS_TEST_EXPECT_MSG_EQ(ri.records[0].placement, "ALL_REDUCE@dim1:ring", "on dim 1");
        NS_TEST_EXPECT_MSG_EQ(ri.unfinished.size(), 0u, "all finish");
    }
};

/// LIFO / FIFO / EXPLICIT order of two collectives sharing a queue
class SchedulingCase : public TestCase
{
  public:
    SchedulingCase()
        : TestCase("scheduling: LIFO, FIFO, EXPLICIT")
    {
    }

  private:
    // returns true if the first-issued collective ends first
    bool FirstEndsFirst(SchedulingPolicy pol)
    {
        auto topo = Topo1D(DimType::RING, 4, kGbps, kLat);
        SystemParams p = Params(4, 1, 10, 0, false);
        p.scheduling = pol;
        Graphs gs;
        for (uint32_t r = 0; r < 4; ++r)
        {
            G g;
            g.Coll(CollType::ALL_REDUCE, 1 << 20);
            auto& b = g.g->nodes[g.Coll(CollType::ALL_REDUCE, 1 << 20) - 1];
            b.commPriority = 5;
            gs.push_back(g.Done(r));
        }
        auto res = AstraSimHelper::Run(topo, p, gs);
        NS_TEST_EXPECT_MSG_EQ(res.records.size(), 2u, "two collectives");
        return res.records[0].end < res.records[1].end;
    }

    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(FirstEndsFirst(SchedulingPolicy::FIFO), true, "FIFO");
        NS_TEST_EXPECT_MSG_EQ(FirstEndsFirst(SchedulingPolicy::LIFO), false, "LIFO");
        NS_TEST_EXPECT_MSG_EQ(FirstEndsFirst(SchedulingPolicy::EXPLICIT),
                              false,
                              "EXPLICIT: priority 5 first");
    }
};

class SystemEngineTestSuite : public TestSuite
{
  public:
    SystemEngineTestSuite()
        : TestSuite("astra-sim-system-engine", UNIT)
    {
        AddTestCase(new DepsCase(), TestCase::QUICK);
        AddTestCase(new P2PCase(), TestCase::QUICK);
        AddTestCase(new ErrorsCase(), TestCase::QUICK);
        AddTestCase(new ComputeCase(), TestCase::QUICK);
        AddTestCase(new MemoryCase(), TestCase::QUICK);
        AddTestCase(new GroupsCase(), TestCase::QUICK);
        AddTestCase(new SchedulingCase(), TestCase::QUICK);
    }
};

SystemEngineTestSuite g_systemEngineTestSuite;

} // namespace
