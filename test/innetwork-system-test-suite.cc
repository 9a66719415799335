/*
 * In-switch collectives through the system layer on the analytical and
 * flow-level backends (suite astra-sim-innetwork-system): times against the
 * closed form (a small all-reduce costs about 2 x tree depth hops, a large one
 * 2d hops + S / B), every operation type, multi-dimensional collectives mixing
 * in-switch and ring, the fallback and wait policies (reported), a straggler,
 * Chakra's in_switch flag, and the configurations that are errors.
 */

#include "ns3/analytical-in-switch.h"
#include "ns3/astra-diagnostics.h"
#include "ns3/astra-sim-helper.h"
#include "ns3/chakra-reader.h"
#include "ns3/config.h"
#include "ns3/enum.h"
#include "ns3/et-writer.h"
#include "ns3/in-switch-aggregation.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

using namespace ns3;
using namespace ns3::astra;

namespace
{

using Graphs = std::vector<std::shared_ptr<const WorkloadGraph>>;

constexpr double kGBps = 50; // link rate of the test topologies (GB/s, 2^30 B)

double
Bpns(double gbps)
{
    return gbps * 1073741824.0 / 1e9;
}

/// 16-NPU two-tier Clos (4 per leaf, 4 spines), NPU links 500 ns, uplinks 700 ns
DimensionSpec
Clos16(bool marked)
{
    DimensionSpec d = ClosDimension(16, 4, 4, kGBps, 500, kGBps, 700);
    d.inSwitch = marked;
    return d;
}

std::shared_ptr<const Topology>
Topo(const std::vector<DimensionSpec>& dims)
{
    return std::make_shared<Topology>(Topology::FromDimensions(dims));
}

SystemParams
Params(const std::string& algo, uint32_t splits = 1)
{
    SystemParams p;
    p.splits = splits;
    p.endpointDelayNs = 10;
    p.localMemBwGBps = 0;
    const AlgoSpec s = AlgoSpec::Parse(algo);
    p.allReduce = {s};
    p.allGather = {s};
    p.reduceScatter = {s};
    p.allToAll = {AlgoSpec::Parse("ring")};
    return p;
}

/// One graph per NPU: an optional COMP of \p delayNs on \p late, then one collective.
Graphs
CollWithDelay(uint32_t n,
              CollType type,
              uint64_t bytes,
              uint32_t late,
              uint64_t delayNs,
              bool inSwitchFlag = false,
              const std::string& group = "",
              const std::vector<uint32_t>& members = {})
{
    Graphs gs;
    for (uint32_t r = 0; r < n; ++r)
    {
        auto g = std::make_shared<WorkloadGraph>();
        g->file = "generated";
        g->rank = r;
        const bool member =
            members.empty() || std::find(members.begin(), members.end(), r) != members.end();
        if (member)
        {
            WorkloadNode c;
            c.id = 2;
            c.name = "coll";
            c.kind = NodeKind::COMM_COLL;
            c.collType = type;
            c.commSize = bytes;
            c.pgName = group;
            c.inSwitch = inSwitchFlag;
            if (r == late && delayNs > 0)
            {
                WorkloadNode w;
                w.id = 1;
                w.name = "late";
                w.kind = NodeKind::COMP;
                w.durationNs = delayNs;
                g->nodes.push_back(w);
                c.dataDeps.push_back(1);
            }
            g->nodes.push_back(c);
        }
        g->BuildIndex();
        gs.push_back(g);
    }
    return gs;
}

/// A run and what its in-switch model counted.
struct Outcome
{
    AstraRunResult res;
    InSwitchAggregation::Stats stats;
    std::string placement;
    std::map<std::string, uint64_t> warnings; //!< counts of the in-switch causes
};

Outcome* g_outcome = nullptr; //!< where the destroy hook writes

void
CountWarnings()
{
    for (const char* c : {"in-switch-fallback", "in-switch-wait", "in-switch-flag-not-honoured"})
    {
        g_outcome->warnings[c] = Warnings::GetCount(c);
    }
}

Outcome
RunIt(std::shared_ptr<const Topology> topo,
      const SystemParams& p,
      const Graphs& gs,
      const std::string& backend,
      const std::map<std::string, std::vector<uint32_t>>& groups = {})
{
    Outcome out;
    Ptr<InSwitchAggregation> model;
    AstraRunOptions o;
    o.backend = backend;
    o.commGroups = groups;
    o.hook = [&](Ptr<SystemContext> ctx, const std::vector<Ptr<AstraSimApplication>>&) {
        model = ctx->GetBackend()->GetObject<InSwitchAggregation>();
        g_outcome = &out;
        Simulator::ScheduleDestroy(&CountWarnings);
    };
    out.res = AstraSimHelper::Run(topo, p, gs, o);
    if (model)
    {
        out.stats = model->GetStats();
    }
    if (!out.res.records.empty())
    {
        out.placement = out.res.records[0].placement;
    }
    return out;
}

/// The closed form of one operation on a fresh analytical model of \p topo
double
ClosedForm(std::shared_ptr<const Topology> topo,
           uint32_t dim,
           const std::vector<uint32_t>& members,
           InSwitchOpKind kind,
           uint64_t bytes,
           uint32_t member,
           uint32_t root = 0)
{
    Ptr<AnalyticalInSwitch> m = CreateObject<AnalyticalInSwitch>();
    m->SetTopology(topo);
    std::string why;
    m->Reserve(dim, members, &why);
    InSwitchOp op;
    op.kind = kind;
    op.dim = int32_t(dim);
    op.members = std::make_shared<std::vector<uint32_t>>(members);
    op.bytes = bytes;
    op.root = root;
    return m->ClosedFormNs(op, 0, member);
}

std::vector<uint32_t>
All(uint32_t n)
{
    std::vector<uint32_t> v(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        v[i] = i;
    }
    return v;
}

/// All-reduce against the closed form, small and large, both backends; ring for comparison.
class AllReduceClosedFormTest : public TestCase
{
  public:
    AllReduceClosedFormTest()
        : TestCase("In-switch all-reduce: 2 x depth hops when small, 2d hops + S over B when large")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = Topo({Clos16(true)});
        const double hops = 2 * (500 + 700); // 2 x tree depth (2) hops
        for (const std::string be : {"analytical", "flow"})
        {
            for (uint64_t s : {uint64_t(1024), uint64_t(64) << 20})
            {
                Outcome o = RunIt(topo,
                                  Params("inSwitch"),
                                  CollWithDelay(16, CollType::ALL_REDUCE, s, 0, 0),
                                  be);
                NS_TEST_ASSERT_MSG_EQ(o.res.unfinished.size(), 0u, be << " finished");
                NS_TEST_EXPECT_MSG_EQ(o.placement, "ALL_REDUCE@dim0:inSwitch", be);
                const double closed =
                    ClosedForm(topo, 0, All(16), InSwitchOpKind::ALL_REDUCE, s, 0) + 10;
                const double t = double(o.res.MaxFinish());
                // the model's own closed form: exact (analytical) or to the ns (flow)
                NS_TEST_EXPECT_MSG_EQ_TOL(t, closed, 2.0, be << " " << s << " B");
                // the textbook form: 2d hops + S / B (+ the endpoint delay)
                const double textbook = hops + double(s) / Bpns(kGBps) + 10;
                NS_TEST_EXPECT_MSG_EQ_TOL(t / textbook, 1.0, 0.03, be << " " << s << " B");
                NS_TEST_EXPECT_MSG_EQ(o.stats.operations, 1u, "one operation");
                NS_TEST_EXPECT_MSG_EQ(o.stats.bytesUp, 16 * s, "S up per NPU");
                NS_TEST_EXPECT_MSG_EQ(o.stats.bytesDown, 16 * s, "S down per NPU");
            }
        }
        // a small ring all-reduce takes 2(n - 1) steps of up to 4 hops: far more
        Outcome ring = RunIt(topo,
                             Params("ring"),
                             CollWithDelay(16, CollType::ALL_REDUCE, 1024, 0, 0),
                             "analytical");
        NS_TEST_EXPECT_MSG_GT(double(ring.res.MaxFinish()), 10 * hops, "ring: 30 steps");
    }
};

/// Every operation type against its closed form.
class OperationsTest : public TestCase
{
  public:
    OperationsTest()
        : TestCase("Reduce-scatter, all-gather, reduce and broadcast in the switches")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = Topo({Clos16(true)});
        const uint64_t s = 4 << 20;

        struct Case
        {
            CollType type;
            InSwitchOpKind kind;
            uint64_t upTotal;   //!< bytes all members contribute
            uint64_t downTotal; //!< payload all members receive
        };

        const Case cases[] = {
            {CollType::REDUCE_SCATTER, InSwitchOpKind::REDUCE_SCATTER, 16 * s, 16 * (s / 16)},
            {CollType::ALL_GATHER, InSwitchOpKind::ALL_GATHER, 16 * s, 16 * 15 * s},
            {CollType::REDUCE, InSwitchOpKind::REDUCE, 16 * s, s},
            {CollType::BROADCAST, InSwitchOpKind::BROADCAST, s, 15 * s},
        };
        for (const auto& c : cases)
        {
            for (const std::string be : {"analytical", "flow"})
            {
                Outcome o = RunIt(topo, Params("inSwitch"), CollWithDelay(16, c.type, s, 0, 0), be);
                NS_TEST_ASSERT_MSG_EQ(o.res.unfinished.size(), 0u, InSwitchOpName(c.kind));
                NS_TEST_EXPECT_MSG_EQ(o.stats.bytesUp, c.upTotal, InSwitchOpName(c.kind) << " up");
                NS_TEST_EXPECT_MSG_EQ(o.stats.bytesDown,
                                      c.downTotal,
                                      InSwitchOpName(c.kind) << " down");
                double closed = 0;
                for (uint32_t m = 0; m < 16; ++m)
                {
                    closed = std::max(closed, ClosedForm(topo, 0, All(16), c.kind, s, m));
                }
                NS_TEST_EXPECT_MSG_EQ_TOL(double(o.res.MaxFinish()),
                                          closed + 10,
                                          2.0,
                                          be << " " << InSwitchOpName(c.kind));
            }
        }
        // the trace's root (comm_src / comm_dst): a BROADCAST from NPU 5 ends first at NPU 5
        // (it only sends), a REDUCE to NPU 5 ends last there (it receives the result)
        for (const CollType t : {CollType::BROADCAST, CollType::REDUCE})
        {
            Graphs gs = CollWithDelay(16, t, s, 0, 0);
            for (auto& g : gs)
            {
                auto rooted = std::make_shared<WorkloadGraph>(*g);
                for (auto& n : rooted->nodes)
                {
                    (t == CollType::BROADCAST ? n.commSrc : n.commDst) = 5;
                }
                rooted->BuildIndex();
                g = rooted;
            }
            Outcome o = RunIt(topo, Params("inSwitch"), gs, "analytical");
            NS_TEST_ASSERT_MSG_EQ(o.res.unfinished.size(), 0u, "root 5 finished");
            NS_TEST_EXPECT_MSG_EQ((o.placement.find("inSwitch") != std::string::npos),
                                  true,
                                  "in the switches: " << o.placement);
            for (uint32_t m = 0; m < 16; ++m)
            {
                if (m == 5)
                {
                    continue;
                }
                if (t == CollType::BROADCAST)
                {
                    NS_TEST_EXPECT_MSG_LT(o.res.finishNs[5], o.res.finishNs[m], "root first");
                }
                else
                {
                    NS_TEST_EXPECT_MSG_GT(o.res.finishNs[5], o.res.finishNs[m], "root last");
                }
            }
        }
        // all-gather's leaf uplink carries 4 inputs and its downlink all 16: 16 S / B
        const double ag = ClosedForm(topo, 0, All(16), InSwitchOpKind::ALL_GATHER, s, 0);
        NS_TEST_EXPECT_MSG_EQ_TOL(ag, 2 * 1200 + 16.0 * s / Bpns(kGBps), 1.0, "all-gather form");
    }
};

/// Two dimensions: in-switch in the scale-up switch, ring or in-switch in the Clos.
class MultiDimTest : public TestCase
{
  public:
    MultiDimTest()
        : TestCase("Multi-dimensional: in-switch per dimension combined with ring")
    {
    }

  private:
    void DoRun() override
    {
        DimensionSpec up{DimType::SWITCH, 4, 200, 100};
        up.inSwitch = true;
        DimensionSpec out = ClosDimension(8, 4, 2, kGBps, 500, kGBps, 500);
        auto topo = Topo({up, out});
        SystemParams p = Params("ring");
        p.allReduce = {AlgoSpec::Parse("inSwitch"), AlgoSpec::Parse("ring")};
        const uint64_t s = 8 << 20;
        Outcome o = RunIt(topo, p, CollWithDelay(32, CollType::ALL_REDUCE, s, 0, 0), "analytical");
        NS_TEST_ASSERT_MSG_EQ(o.res.unfinished.size(),
                              0u,
                              "finished " << o.res.error << o.res.pending.substr(0, 2000));
        NS_TEST_EXPECT_MSG_EQ(o.placement,
                              "ALL_REDUCE@dim0:inSwitch ALL_REDUCE@dim1:ring",
                              "placement");
        // dim 0: the closed form; dim 1: a ring of 8 on the Clos, alone
        const double first = ClosedForm(topo, 0, {0, 1, 2, 3}, InSwitchOpKind::ALL_REDUCE, s, 0);
        SystemParams ringOnly = Params("ring");
        auto closOnly = Topo({out});
        Outcome r = RunIt(closOnly,
                          ringOnly,
                          CollWithDelay(8, CollType::ALL_REDUCE, s, 0, 0),
                          "analytical");
        NS_TEST_EXPECT_MSG_EQ_TOL(double(o.res.MaxFinish()),
                                  first + 10 + double(r.res.MaxFinish()),
                                  2.0,
                                  "phases add up");
        // in-switch on both dimensions
        DimensionSpec outMarked = out;
        outMarked.inSwitch = true;
        auto both = Topo({up, outMarked});
        Outcome b = RunIt(both,
                          Params("inSwitch"),
                          CollWithDelay(32, CollType::ALL_REDUCE, s, 0, 0),
                          "flow");
        NS_TEST_EXPECT_MSG_EQ(b.placement,
                              "ALL_REDUCE@dim0:inSwitch ALL_REDUCE@dim1:inSwitch",
                              "placement");
        NS_TEST_EXPECT_MSG_EQ(b.stats.operations,
                              8u + 4u,
                              "one per server line (8) and per Clos line (4)");
        NS_TEST_EXPECT_MSG_LT(double(b.res.MaxFinish()), double(o.res.MaxFinish()), "faster");
    }
};

/// No tree for a group: fallback (reported) or wait (reported).
class PoliciesTest : public TestCase
{
  public:
    PoliciesTest()
        : TestCase("One tree per switch: the second group falls back to ring, or waits")
    {
    }

  private:
    void DoRun() override
    {
        DimensionSpec d{DimType::SWITCH, 8, kGBps, 500};
        d.inSwitch = true;
        auto topo = Topo({d});
        const std::map<std::string, std::vector<uint32_t>> groups = {{"1", {0, 1, 2, 3}},
                                                                     {"2", {4, 5, 6, 7}}};
        Graphs gs;
        for (uint32_t r = 0; r < 8; ++r)
        {
            auto g = std::make_shared<WorkloadGraph>();
            g->rank = r;
            WorkloadNode c;
            c.id = 1;
            c.name = "ar";
            c.kind = NodeKind::COMM_COLL;
            c.collType = CollType::ALL_REDUCE;
            c.commSize = 1 << 20;
            c.pgName = r < 4 ? "1" : "2";
            g->nodes.push_back(c);
            g->BuildIndex();
            gs.push_back(g);
        }
        Config::SetDefault("ns3::astra::InSwitchAggregation::TreesPerSwitch", UintegerValue(1));
        Outcome fb = RunIt(topo, Params("inSwitch"), gs, "analytical", groups);
        NS_TEST_ASSERT_MSG_EQ(fb.res.unfinished.size(), 0u, "fallback: finished");
        NS_TEST_EXPECT_MSG_EQ(fb.stats.fallbacks, 1u, "one group fell back");
        NS_TEST_EXPECT_MSG_EQ(fb.stats.operations, 1u, "one group ran in the switch");
        NS_TEST_EXPECT_MSG_EQ(fb.warnings["in-switch-fallback"], 1u, "reported once");
        std::string placements;
        for (const auto& rec : fb.res.records)
        {
            placements += rec.placement + ";";
        }
        NS_TEST_EXPECT_MSG_EQ(placements,
                              "ALL_REDUCE@dim0:inSwitch;ALL_REDUCE@dim0:ring;",
                              "the second group's placement says ring");

        Config::SetDefault("ns3::astra::InSwitchAggregation::NoResources", EnumValue(1));
        Outcome w = RunIt(topo, Params("inSwitch"), gs, "analytical", groups);
        Config::SetDefault("ns3::astra::InSwitchAggregation::NoResources", EnumValue(0));
        Config::SetDefault("ns3::astra::InSwitchAggregation::TreesPerSwitch", UintegerValue(0));
        NS_TEST_ASSERT_MSG_EQ(w.res.unfinished.size(), 0u, "wait: finished");
        NS_TEST_EXPECT_MSG_EQ(w.stats.fallbacks, 0u, "nobody fell back");
        NS_TEST_EXPECT_MSG_EQ(w.stats.operations, 2u, "both in the switch");
        NS_TEST_EXPECT_MSG_EQ(w.stats.waits, 1u, "one waited");
        NS_TEST_EXPECT_MSG_EQ(w.warnings["in-switch-wait"], 1u, "reported");
        const double one =
            ClosedForm(topo, 0, {0, 1, 2, 3}, InSwitchOpKind::ALL_REDUCE, 1 << 20, 0);
        NS_TEST_EXPECT_MSG_EQ_TOL(double(w.stats.waitTime.GetNanoSeconds()),
                                  one,
                                  2.0,
                                  "the second waited for the first");
        NS_TEST_EXPECT_MSG_EQ_TOL(double(w.res.MaxFinish()),
                                  2 * one + 10,
                                  3.0,
                                  "one after the other");
    }
};

/// A straggler delays every member.
class StragglerTest : public TestCase
{
  public:
    StragglerTest()
        : TestCase("A straggling NPU delays every member of the in-switch all-reduce")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = Topo({Clos16(true)});
        const uint64_t s = 1 << 20;
        const uint64_t late = 50000;
        const double closed = ClosedForm(topo, 0, All(16), InSwitchOpKind::ALL_REDUCE, s, 0);
        for (const std::string be : {"analytical", "flow"})
        {
            Outcome o = RunIt(topo,
                              Params("inSwitch"),
                              CollWithDelay(16, CollType::ALL_REDUCE, s, 7, late),
                              be);
            NS_TEST_ASSERT_MSG_EQ(o.res.unfinished.size(), 0u, be);
            for (uint32_t i = 0; i < 16; ++i)
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(double(o.res.finishNs[i]),
                                          double(late) + closed + 10,
                                          2.0,
                                          be << ": NPU " << i << " waits for NPU 7");
            }
        }
    }
};

/// Chakra's in_switch flag, written and read back.
class ChakraFlagTest : public TestCase
{
  public:
    ChakraFlagTest()
        : TestCase("Chakra's in_switch flag: read, written, honoured where the switches aggregate")
    {
    }

  private:
    void DoRun() override
    {
        Graphs gs = CollWithDelay(16, CollType::ALL_REDUCE, 1 << 20, 0, 0, true);
        // through the writer and the reader
        const std::string path = "innetwork-flag-test.et";
        WriteChakraFile(*gs[3], path);
        const WorkloadGraph back = ReadChakraFile(path, 3);
        std::remove(path.c_str());
        NS_TEST_EXPECT_MSG_EQ(back.nodes.at(0).inSwitch, true, "in_switch read back");
        auto plain = CollWithDelay(1, CollType::ALL_REDUCE, 1, 0, 0, false);
        WriteChakraFile(*plain[0], path);
        NS_TEST_EXPECT_MSG_EQ(ReadChakraFile(path, 0).nodes.at(0).inSwitch, false, "absent");
        std::remove(path.c_str());

        // ring configured, the trace asks for the switches
        Outcome o = RunIt(Topo({Clos16(true)}), Params("ring"), gs, "analytical");
        NS_TEST_EXPECT_MSG_EQ(o.placement, "ALL_REDUCE@dim0:inSwitch", "flag honoured");
        NS_TEST_EXPECT_MSG_EQ(o.warnings["in-switch-flag-not-honoured"], 0u, "no warning");
        // a dimension without aggregating switches: ring, with a warning
        DimensionSpec up{DimType::SWITCH, 4, 200, 100};
        up.inSwitch = true;
        Outcome w = RunIt(Topo({up, DimensionSpec{DimType::RING, 4, kGBps, 500}}),
                          Params("ring"),
                          CollWithDelay(16, CollType::ALL_REDUCE, 1 << 20, 0, 0, true),
                          "analytical");
        NS_TEST_EXPECT_MSG_EQ(w.placement,
                              "ALL_REDUCE@dim0:inSwitch ALL_REDUCE@dim1:ring",
                              "mixed");
        // printed once, counted per group instance (the 4 lines of dimension 1)
        NS_TEST_EXPECT_MSG_EQ(w.warnings["in-switch-flag-not-honoured"], 4u, "counted per line");
    }
};

/// Bad configurations.
class ErrorsTest : public TestCase
{
  public:
    ErrorsTest()
        : TestCase("In-switch where it cannot run is an input error naming the key")
    {
    }

  private:
    std::string ErrorOf(std::shared_ptr<const Topology> topo, const SystemParams& p, uint32_t n)
    {
        // a configuration error ends the run before it starts: the run's error (or thrown)
        try
        {
            AstraRunResult r =
                AstraSimHelper::Run(topo, p, CollWithDelay(n, CollType::ALL_REDUCE, 1024, 0, 0));
            return r.error;
        }
        catch (const InputError& e)
        {
            Simulator::Destroy();
            return e.what();
        }
    }

    void DoRun() override
    {
        DimensionSpec up{DimType::SWITCH, 4, 200, 100};
        up.inSwitch = true;
        // a Ring dimension has no switches
        SystemParams p = Params("inSwitch");
        std::string e = ErrorOf(Topo({up, DimensionSpec{DimType::RING, 4, kGBps, 500}}), p, 16);
        NS_TEST_EXPECT_MSG_NE(e.find("all-reduce-implementation entry 0 (inSwitch)"),
                              std::string::npos,
                              e);
        NS_TEST_EXPECT_MSG_NE(e.find("dimension 1 (Ring)"), std::string::npos, e);
        // a Switch dimension not marked in_switch (and no model at all)
        e = ErrorOf(Topo({DimensionSpec{DimType::SWITCH, 8, kGBps, 500}}), p, 8);
        NS_TEST_EXPECT_MSG_NE(e.find("has no in-switch model"), std::string::npos, e);
        // all-to-all is not run by the switches
        p = Params("ring");
        p.allToAll = {AlgoSpec::Parse("inSwitch")};
        e = ErrorOf(Topo({Clos16(true)}), p, 16);
        NS_TEST_EXPECT_MSG_NE(e.find("all-to-all-implementation"), std::string::npos, e);
        // zero slots
        Config::SetDefault("ns3::astra::InSwitchAggregation::Slots", UintegerValue(0));
        e = ErrorOf(Topo({Clos16(true)}), Params("inSwitch"), 16);
        Config::SetDefault("ns3::astra::InSwitchAggregation::Slots", UintegerValue(1024));
        NS_TEST_EXPECT_MSG_NE(e.find("Slots (0) must be at least 1"), std::string::npos, e);
        // "oneInSwitch" does not exist
        bool threw = false;
        try
        {
            AlgoSpec::Parse("oneInSwitch");
        }
        catch (const InputError&)
        {
            threw = true;
        }
        NS_TEST_EXPECT_MSG_EQ(threw, true, "no flattened variant");
    }
};

} // namespace

/// The suite.
class InNetworkSystemTestSuite : public TestSuite
{
  public:
    InNetworkSystemTestSuite()
        : TestSuite("astra-sim-innetwork-system", UNIT)
    {
        AddTestCase(new AllReduceClosedFormTest, TestCase::QUICK);
        AddTestCase(new OperationsTest, TestCase::QUICK);
        AddTestCase(new MultiDimTest, TestCase::QUICK);
        AddTestCase(new PoliciesTest, TestCase::QUICK);
        AddTestCase(new StragglerTest, TestCase::QUICK);
        AddTestCase(new ChakraFlagTest, TestCase::QUICK);
        AddTestCase(new ErrorsTest, TestCase::QUICK);
    }
};

static InNetworkSystemTestSuite g_inNetworkSystemTestSuite; //!< static instance
