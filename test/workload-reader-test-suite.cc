/*
 * Tests of the Chakra ET reader and writer (suite "astra-sim-workload-reader").
 */

#include "ns3/astra-paths.h"
#include "ns3/chakra-reader.h"
#include "ns3/et-writer.h"
#include "ns3/test.h"

#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace ns3;
using namespace ns3::astra;

namespace
{

/// Minimal protobuf wire encoder, independent of the module's .proto.
struct Wire
{
    std::string b;

    Wire& Varint(uint64_t v)
    {
        do
        {
            uint8_t c = v & 0x7f;
            v >>= 7;
            b.push_back(static_cast<char>(v ? (c | 0x80) : c));
        } while (v);
        return *this;
    }

    Wire& Key(uint32_t field, uint32_t wt)
    {
        return Varint((static_cast<uint64_t>(field) << 3) | wt);
    }

    Wire& VarintField(uint32_t field, uint64_t v)
    {
        return Key(field, 0).Varint(v);
    }

    Wire& Fixed32Field(uint32_t field, uint32_t v)
    {
        Key(field, 5);
        for (int i = 0; i < 4; ++i)
        {
            b.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
        }
        return *this;
    }

    Wire& Fixed64Field(uint32_t field, uint64_t v)
    {
        Key(field, 1);
        for (int i = 0; i < 8; ++i)
        {
            b.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
        }
        return *this;
    }

    Wire& Bytes(uint32_t field, const std::string& s)
    {
        Key(field, 2).Varint(s.size());
        b += s;
        return *this;
    }

    Wire& Double(uint32_t field, double d)
    {
        uint64_t v;
        std::memcpy(&v, &d, 8);
        return Fixed64Field(field, v);
    }
};

uint64_t
ZigZag(int64_t v)
{
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

/// Attribute with a name and an already encoded value field.
std::string
Attr(const std::string& name, const Wire& value)
{
    Wire a;
    a.Bytes(1, name);
    a.b += value.b;
    return a.b;
}

std::string
Delimit(const std::string& msg)
{
    Wire w;
    w.Varint(msg.size());
    return w.b + msg;
}

std::string
Metadata(const std::string& version = "0.0.4")
{
    Wire m;
    m.Bytes(1, version);
    return Delimit(m.b);
}

/// A node message: id, name, type, data deps (packed), ctrl deps (packed), extra bytes.
std::string
NodeMsg(uint64_t id,
        const std::string& name,
        int type,
        const std::vector<uint64_t>& data,
        const std::vector<uint64_t>& ctrl,
        const std::string& extra = "")
{
    Wire n;
    n.VarintField(1, id).Bytes(2, name).VarintField(3, type);
    if (!ctrl.empty())
    {
        Wire p;
        for (auto d : ctrl)
        {
            p.Varint(d);
        }
        n.Bytes(4, p.b);
    }
    if (!data.empty())
    {
        Wire p;
        for (auto d : data)
        {
            p.Varint(d);
        }
        n.Bytes(5, p.b);
    }
    n.b += extra;
    return Delimit(n.b);
}

std::string
MakeTempDir()
{
    char tmpl[] = "/tmp/astra-wl-test-XXXXXX";
    char* d = mkdtemp(tmpl);
    return d ? std::string(d) : std::string("/tmp");
}

void
WriteBytes(const std::string& path, const std::string& bytes)
{
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), bytes.size());
}

std::string
ReadBytes(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

void
RemoveDir(const std::string& dir)
{
    if (DIR* d = opendir(dir.c_str()))
    {
        while (dirent* e = readdir(d))
        {
            std::string n = e->d_name;
            if (n != "." && n != "..")
            {
                std::remove((dir + "/" + n).c_str());
            }
        }
        closedir(d);
    }
    rmdir(dir.c_str());
}

/// \return what() of the WorkloadError thrown by f, or "" if none
std::string
ErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const WorkloadError& e)
    {
        return e.what();
    }
    return "";
}

bool
Has(const std::string& s, const std::string& part)
{
    return s.find(part) != std::string::npos;
}

/// All workload prefixes (files PREFIX.<n>.et) under a directory, recursively.
void
FindPrefixes(const std::string& dir, std::map<std::string, uint32_t>& out)
{
    DIR* d = opendir(dir.c_str());
    if (!d)
    {
        return;
    }
    while (dirent* e = readdir(d))
    {
        std::string n = e->d_name;
        if (n == "." || n == "..")
        {
            continue;
        }
        std::string p = dir + "/" + n;
        struct stat st;
        if (stat(p.c_str(), &st) != 0)
        {
            continue;
        }
        if (S_ISDIR(st.st_mode))
        {
            FindPrefixes(p, out);
        }
        else if (n.size() > 3 && n.substr(n.size() - 3) == ".et")
        {
            std::string stem = p.substr(0, p.size() - 3);
            size_t dot = stem.find_last_of('.');
            if (dot != std::string::npos &&
                stem.find_first_not_of("0123456789", dot + 1) == std::string::npos)
            {
                out[stem.substr(0, dot)]++;
            }
        }
    }
    closedir(d);
}

} // namespace

/// Every reference ET set reads with the expected rank count; specific counts for some.
class ReferenceEtTestCase : public TestCase
{
  public:
    ReferenceEtTestCase()
        : TestCase("every reference Chakra ET set reads; node counts of known files")
    {
    }

  private:
    void DoRun() override
    {
        try
        {
            Body();
        }
        catch (const std::exception& e)
        {
            NS_TEST_ASSERT_MSG_EQ(true, false, "unexpected exception: " << e.what());
        }
    }

    void Body()
    {
        std::string ref = GetReferenceDir();
        std::map<std::string, uint32_t> prefixes;
        FindPrefixes(ref, prefixes);
        NS_TEST_ASSERT_MSG_GT(prefixes.size(), 15, "reference ET sets not found under " << ref);
        for (const auto& [prefix, files] : prefixes)
        {
            std::vector<WorkloadGraph> gs;
            std::string err =
                ErrorOf([&, p = prefix, n = files]() { gs = ReadChakraPrefix(p, n); });
            NS_TEST_ASSERT_MSG_EQ(err, "", "reading " << prefix);
            NS_TEST_ASSERT_MSG_EQ(gs.size(), files, prefix);
            for (const auto& g : gs)
            {
                // write with our writer, read back: the same graph
                WorkloadGraph back =
                    ReadChakraBuffer(SerializeChakra(g), g.file + "(rewritten)", g.rank);
                bool same = back.nodes.size() == g.nodes.size();
                for (size_t i = 0; same && i < g.nodes.size(); ++i)
                {
                    same = back.nodes[i] == g.nodes[i];
                }
                NS_TEST_EXPECT_MSG_EQ(same, true, g.file << " round trip");
                NS_TEST_EXPECT_MSG_GT(g.nodes.size(), 0, g.file);
                NS_TEST_EXPECT_MSG_EQ(g.legacy, false, g.file);
                NS_TEST_EXPECT_MSG_EQ(g.index.size(), g.nodes.size(), g.file);
            }
        }

        // microbenchmark all_reduce, 4 NPUs, 1 MiB: one COMM_COLL ALL_REDUCE of 1048576 B
        const std::string mb = ref + "/astra-sim/examples/workload/microbenchmarks/";
        for (auto [coll, type] : std::vector<std::pair<std::string, CollType>>{
                 {"all_reduce", CollType::ALL_REDUCE},
                 {"all_gather", CollType::ALL_GATHER},
                 {"reduce_scatter", CollType::REDUCE_SCATTER},
                 {"all_to_all", CollType::ALL_TO_ALL}})
        {
            for (uint32_t npus : {4u, 8u, 16u})
            {
                auto gs =
                    ReadChakraPrefix(mb + coll + "/" + std::to_string(npus) + "npus_1MB/" + coll,
                                     npus);
                NS_TEST_ASSERT_MSG_EQ(gs.size(), npus, coll);
                for (const auto& g : gs)
                {
                    NS_TEST_ASSERT_MSG_EQ(g.nodes.size(), 1, g.file);
                    const auto& n = g.nodes[0];
                    NS_TEST_EXPECT_MSG_EQ(n.kind, NodeKind::COMM_COLL, g.file);
                    NS_TEST_EXPECT_MSG_EQ(CollTypeName(n.collType),
                                          std::string(CollTypeName(type)),
                                          g.file);
                    NS_TEST_EXPECT_MSG_EQ(n.commSize, 1048576, g.file);
                    NS_TEST_EXPECT_MSG_EQ(g.version, "0.0.4", g.file);
                    NS_TEST_EXPECT_MSG_EQ(n.pgName, "", g.file);
                }
            }
        }

        // demo1 all-reduce carries involved_dim = [true, true]
        auto demo1 =
            ReadChakraFile(ref + "/astra-sim-tutorials/micro2024/astra-sim-demo/demo1/allreduce/"
                                 "allreduce.0.et",
                           0);
        NS_TEST_ASSERT_MSG_EQ(demo1.nodes.size(), 1, "demo1");
        NS_TEST_EXPECT_MSG_EQ((demo1.nodes[0].involvedDim == std::vector<bool>{true, true}),
                              true,
                              "involved_dim");

        // STG GPT dp2 tp2 pp2 (forward deps, unordered ids, pg_name strings, is_cpu_op int32)
        auto stg = ReadChakraPrefix(ref + "/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2", 8);
        std::map<NodeKind, int> kinds;
        std::set<std::string> pgs;
        uint64_t withOps = 0;
        for (const auto& n : stg[0].nodes)
        {
            kinds[n.kind]++;
            if (n.kind == NodeKind::COMM_COLL)
            {
                pgs.insert(n.pgName);
            }
            withOps += n.hasNumOps && n.tensorSize > 0 ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(stg[0].nodes.size(), 348, "stg rank 0 nodes");
        NS_TEST_EXPECT_MSG_EQ(kinds[NodeKind::COMP], 250, "stg COMP");
        NS_TEST_EXPECT_MSG_EQ(kinds[NodeKind::COMM_COLL], 90, "stg COLL");
        NS_TEST_EXPECT_MSG_EQ(kinds[NodeKind::COMM_SEND], 4, "stg SEND");
        NS_TEST_EXPECT_MSG_EQ(kinds[NodeKind::COMM_RECV], 4, "stg RECV");
        NS_TEST_EXPECT_MSG_EQ(withOps, 250, "stg COMP nodes with num_ops and tensor_size");
        NS_TEST_EXPECT_MSG_EQ(pgs.count(""), 0, "every stg collective names a group");
        NS_TEST_EXPECT_MSG_EQ(stg[7].nodes.size(), 356, "stg rank 7 nodes");

        // custom (MSCCL) ring all-reduce: SEND/RECV/COMP
        auto custom = ReadChakraFile(ref + "/astra-sim/examples/system/custom_collectives/"
                                           "custom_ring_allreduce_8npus_1MB/custom_allreduce.0.et",
                                     0);
        int sends = 0;
        int recvs = 0;
        for (const auto& n : custom.nodes)
        {
            if (n.kind == NodeKind::COMM_SEND)
            {
                ++sends;
                NS_TEST_EXPECT_MSG_EQ(n.commDst, 1, "rank 0 sends to 1");
                NS_TEST_EXPECT_MSG_EQ(n.commSize, 131072, "chunk size");
            }
            if (n.kind == NodeKind::COMM_RECV)
            {
                ++recvs;
                NS_TEST_EXPECT_MSG_EQ(n.commSrc, 7, "rank 0 receives from 7");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(custom.nodes.size(), 35, "custom nodes");
        NS_TEST_EXPECT_MSG_EQ(sends, 14, "custom sends");
        NS_TEST_EXPECT_MSG_EQ(recvs, 14, "custom recvs");

        // MLP model-parallel from the text converter: 18 COMP + 11 COLL, durations
        auto mlp = ReadChakraFile(ref + "/astra-sim-tutorials/micro2024/astra-sim-demo/demo2/"
                                        "workload/MLP_ModelParallel.0.et",
                                  0);
        NS_TEST_EXPECT_MSG_EQ(mlp.nodes.size(), 29, "MLP nodes");
        NS_TEST_EXPECT_MSG_EQ(mlp.nodes[0].durationMicros, 32291, "first COMP duration");
        NS_TEST_EXPECT_MSG_EQ(mlp.nodes[1].commSize, 37632, "first ALLGATHER size");
        NS_TEST_EXPECT_MSG_EQ(mlp.nodes[0].GetDurationNs(), 32291000, "micros by default");
        ChakraReadOptions cyc;
        cyc.durationMicrosAsCycles = true;
        auto mlpc = ReadChakraFile(ref + "/astra-sim-tutorials/micro2024/astra-sim-demo/demo2/"
                                         "workload/MLP_ModelParallel.0.et",
                                   0,
                                   cyc);
        NS_TEST_EXPECT_MSG_EQ(mlpc.nodes[0].GetDurationNs(), 32291, "micros read as cycles");
        NS_TEST_EXPECT_MSG_EQ(mlpc.nodes[0].durationMicros, 32291, "raw value kept");

        // the same files under the wrong rank count
        std::string p4 = mb + "all_reduce/4npus_1MB/all_reduce";
        std::string e = ErrorOf([&]() { ReadChakraPrefix(p4, 8); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "found 4") && Has(e, "expected 8") && Has(e, "rank 4"),
                              true,
                              e);
        e = ErrorOf([&]() { ReadChakraPrefix(p4, 2); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "found 4") && Has(e, "expected 2") && Has(e, p4 + ".3.et") &&
                                  Has(e, "extra"),
                              true,
                              e);
    }
};

/// Synthetic files: every integer kind, forward deps, unordered ids, unknown fields,
/// legacy layout, gzip, zero-length end marker, groups in METADATA nodes.
class SyntheticEtTestCase : public TestCase
{
  public:
    SyntheticEtTestCase()
        : TestCase("synthetic ET: integer kinds, forward deps, unknown fields, legacy, gzip")
    {
    }

  private:
    static std::string Bytes()
    {
        std::string s = Metadata();
        // COMP id 5, data dep on 3 (forward), attributes of several integer kinds,
        // unknown node fields 99 (varint) and 15 (bytes), unknown field in an attribute
        Wire a1;
        a1.VarintField(17, ZigZag(123456789012LL)); // num_ops as sint64
        Wire a2;
        a2.Fixed64Field(21, 4096); // tensor_size as fixed64
        Wire a3;
        a3.VarintField(7, 1).VarintField(40, 5); // is_cpu_op int32, unknown field 40
        Wire a4;
        a4.Bytes(29, "GEMM");
        Wire extra;
        extra.Bytes(10, Attr("num_ops", a1))
            .Bytes(10, Attr("tensor_size", a2))
            .Bytes(10, Attr("is_cpu_op", a3))
            .Bytes(10, Attr("op_type", a4))
            .VarintField(99, 12345)
            .Bytes(15, "ignored")
            .VarintField(7, 17)               // duration_micros
            .Bytes(8, "plain string inputs"); // inputs not as IOInfo: tolerated
        s += NodeMsg(5, "comp", 4, {3}, {}, extra.b);

        // COMM_COLL id 3: comm_type uint32, comm_size fixed32, pg_name int64,
        // involved_dim unpacked int32 list, comm_priority sint32
        Wire b1;
        b1.VarintField(11, 7);
        Wire b2;
        b2.Fixed32Field(19, 65536);
        Wire b3;
        b3.VarintField(9, 5);
        Wire dims; // Int32List with unpacked values
        dims.VarintField(1, 1).VarintField(1, 0).VarintField(1, 1);
        Wire b4;
        b4.Bytes(8, dims.b);
        Wire b5;
        b5.VarintField(15, ZigZag(-2));
        Wire extra2;
        extra2.Bytes(10, Attr("comm_type", b1))
            .Bytes(10, Attr("comm_size", b2))
            .Bytes(10, Attr("pg_name", b3))
            .Bytes(10, Attr("involved_dim", b4))
            .Bytes(10, Attr("comm_priority", b5));
        s += NodeMsg(3, "coll", 7, {}, {}, extra2.b);

        // SEND id 9: comm_dst uint64, comm_tag sfixed64, comm_size uint64, comm_src sfixed32
        Wire c1;
        c1.VarintField(13, 4);
        Wire c2;
        c2.Fixed64Field(25, static_cast<uint64_t>(-77LL));
        Wire c3;
        c3.VarintField(13, 1000);
        Wire c4;
        c4.Fixed32Field(23, 0);
        Wire extra3;
        extra3.Bytes(10, Attr("comm_dst", c1))
            .Bytes(10, Attr("comm_tag", c2))
            .Bytes(10, Attr("comm_size", c3))
            .Bytes(10, Attr("comm_src", c4));
        s += NodeMsg(9, "send", 5, {5}, {}, extra3.b);

        // RECV id 1: ctrl deps unpacked, comm_src int64, comm_tag int32, comm_size double,
        // an attribute without a value (absent), is_cpu_op as bool
        Wire d1;
        d1.VarintField(9, 2);
        Wire d2;
        d2.VarintField(7, 77);
        Wire d3;
        d3.Double(3, 2048.0);
        Wire none;
        Wire extra4;
        extra4.VarintField(4, 9)
            .VarintField(4, 3)
            .Bytes(10, Attr("comm_src", d1))
            .Bytes(10, Attr("comm_tag", d2))
            .Bytes(10, Attr("comm_size", d3))
            .Bytes(10, Attr("comm_priority", none));
        s += NodeMsg(1, "recv", 6, {}, {}, extra4.b);

        // COMM_COLL id 7: comm_type bool (=1 REDUCE) ... use int64 9 (BARRIER), involved_dim
        // packed bool list, comm_size as numeric string
        Wire e1;
        e1.VarintField(9, 9);
        Wire bl;
        bl.Bytes(1, std::string("\x01\x00", 2));
        Wire e2;
        e2.Bytes(28, bl.b);
        Wire e3;
        e3.Bytes(29, "8192");
        Wire extra5;
        extra5.Bytes(10, Attr("comm_type", e1))
            .Bytes(10, Attr("involved_dim", e2))
            .Bytes(10, Attr("comm_size", e3));
        s += NodeMsg(7, "barrier", 7, {1}, {}, extra5.b);

        // METADATA id 100: a group by pg_name + pg_ranks and groups from a JSON string
        Wire f1;
        f1.Bytes(29, "tp7");
        Wire ranks;
        ranks.Bytes(1, std::string("\x00\x02", 2));
        Wire f2;
        f2.Bytes(12, ranks.b); // Uint32List packed
        Wire f3;
        f3.Bytes(29, R"([{"pg_name": "0", "ranks": [0, 1, 2, 3]}, {"pg_name": 9, "ranks": [1]}])");
        Wire extra6;
        extra6.Bytes(10, Attr("pg_name", f1))
            .Bytes(10, Attr("pg_ranks", f2))
            .Bytes(10, Attr("pg_config", f3));
        s += NodeMsg(100, "meta", 1, {}, {}, extra6.b);
        // zero-length message: end of stream; what follows is ignored
        s += std::string("\x00", 1) + "garbage after the end marker";
        return s;
    }

    void DoRun() override
    {
        try
        {
            Body();
        }
        catch (const std::exception& e)
        {
            NS_TEST_ASSERT_MSG_EQ(true, false, "unexpected exception: " << e.what());
        }
    }

    void Body()
    {
        WorkloadGraph g = ReadChakraBuffer(Bytes(), "synthetic.et", 3);
        NS_TEST_ASSERT_MSG_EQ(g.nodes.size(), 6, "node count");
        NS_TEST_EXPECT_MSG_EQ(g.rank, 3, "rank");
        NS_TEST_EXPECT_MSG_EQ(g.version, "0.0.4", "version");
        const WorkloadNode* comp = g.Find(5);
        NS_TEST_ASSERT_MSG_NE(comp, nullptr, "id 5");
        NS_TEST_EXPECT_MSG_EQ(comp->numOps, 123456789012ULL, "num_ops sint64");
        NS_TEST_EXPECT_MSG_EQ(comp->hasNumOps, true, "hasNumOps");
        NS_TEST_EXPECT_MSG_EQ(comp->tensorSize, 4096, "tensor_size fixed64");
        NS_TEST_EXPECT_MSG_EQ(comp->isCpuOp, true, "is_cpu_op int32");
        NS_TEST_EXPECT_MSG_EQ(comp->opType, "GEMM", "op_type");
        NS_TEST_EXPECT_MSG_EQ(comp->durationMicros, 17, "duration_micros");
        NS_TEST_EXPECT_MSG_EQ((comp->dataDeps == std::vector<uint64_t>{3}), true, "fwd dep");
        const WorkloadNode* coll = g.Find(3);
        NS_TEST_ASSERT_MSG_NE(coll, nullptr, "id 3");
        NS_TEST_EXPECT_MSG_EQ(coll->collType, CollType::REDUCE_SCATTER, "uint32 type");
        NS_TEST_EXPECT_MSG_EQ(coll->commSize, 65536, "fixed32 size");
        NS_TEST_EXPECT_MSG_EQ(coll->pgName, "5", "pg_name from int64");
        NS_TEST_EXPECT_MSG_EQ((coll->involvedDim == std::vector<bool>{true, false, true}),
                              true,
                              "involved_dim from unpacked int32 list");
        NS_TEST_EXPECT_MSG_EQ(coll->commPriority, -2, "sint32 priority");
        const WorkloadNode* send = g.Find(9);
        NS_TEST_ASSERT_MSG_NE(send, nullptr, "id 9");
        NS_TEST_EXPECT_MSG_EQ(send->commDst, 4, "uint64 dst");
        NS_TEST_EXPECT_MSG_EQ(send->commTag, -77, "sfixed64 tag");
        NS_TEST_EXPECT_MSG_EQ(send->commSize, 1000, "uint64 size");
        NS_TEST_EXPECT_MSG_EQ(send->commSrc, 0, "sfixed32 src");
        const WorkloadNode* recv = g.Find(1);
        NS_TEST_ASSERT_MSG_NE(recv, nullptr, "id 1");
        NS_TEST_EXPECT_MSG_EQ((recv->ctrlDeps == std::vector<uint64_t>{9, 3}),
                              true,
                              "unpacked ctrl deps");
        NS_TEST_EXPECT_MSG_EQ(recv->commSrc, 2, "int64 src");
        NS_TEST_EXPECT_MSG_EQ(recv->commTag, 77, "int32 tag");
        NS_TEST_EXPECT_MSG_EQ(recv->commSize, 2048, "double size");
        NS_TEST_EXPECT_MSG_EQ(recv->commPriority, 0, "valueless attribute is absent");
        const WorkloadNode* bar = g.Find(7);
        NS_TEST_ASSERT_MSG_NE(bar, nullptr, "id 7");
        NS_TEST_EXPECT_MSG_EQ(bar->collType, CollType::BARRIER, "BARRIER");
        NS_TEST_EXPECT_MSG_EQ((bar->involvedDim == std::vector<bool>{true, false}),
                              true,
                              "bool list");
        NS_TEST_EXPECT_MSG_EQ(bar->commSize, 8192, "numeric string size");
        NS_TEST_EXPECT_MSG_EQ(g.commGroups.size(), 3, "groups");
        NS_TEST_EXPECT_MSG_EQ((g.commGroups["tp7"] == std::vector<uint32_t>{0, 2}), true, "tp7");
        NS_TEST_EXPECT_MSG_EQ((g.commGroups["0"] == std::vector<uint32_t>{0, 1, 2, 3}),
                              true,
                              "pg_config 0");
        NS_TEST_EXPECT_MSG_EQ((g.commGroups["9"] == std::vector<uint32_t>{1}), true, "pg 9");
        auto order = g.TopologicalOrder();
        NS_TEST_EXPECT_MSG_EQ(order.size(), 6, "topological order");
        NS_TEST_EXPECT_MSG_EQ(order.back(), 7, "barrier depends on everything before it");

        // write + read back equal; legacy layout; gzip layout
        std::string dir = MakeTempDir();
        for (int mode = 0; mode < 3; ++mode)
        {
            ChakraWriteOptions o;
            o.legacy = mode == 1;
            o.gzip = mode == 2;
            std::string path = dir + "/rt." + std::to_string(mode) + ".et";
            WriteChakraFile(g, path, o);
            std::string raw = ReadBytes(path);
            NS_TEST_EXPECT_MSG_EQ(
                (static_cast<uint8_t>(raw[0]) == 0x1f && static_cast<uint8_t>(raw[1]) == 0x8b),
                (mode == 2),
                "gzip magic");
            WorkloadGraph h = ReadChakraFile(path, 3);
            NS_TEST_ASSERT_MSG_EQ(h.nodes.size(), g.nodes.size(), path);
            NS_TEST_EXPECT_MSG_EQ(h.legacy, (mode == 1), "legacy detection");
            for (size_t i = 0; i < g.nodes.size(); ++i)
            {
                WorkloadNode expect = g.nodes[i];
                if (mode == 1)
                {
                    // legacy: all deps in ctrl_deps
                    expect.ctrlDeps.insert(expect.ctrlDeps.end(),
                                           expect.dataDeps.begin(),
                                           expect.dataDeps.end());
                    expect.dataDeps.clear();
                }
                NS_TEST_EXPECT_MSG_EQ((h.nodes[i] == expect), true, "node " << g.nodes[i].id);
            }
            if (mode != 1)
            {
                NS_TEST_EXPECT_MSG_EQ((h.commGroups == g.commGroups), true, "groups");
                NS_TEST_EXPECT_MSG_EQ(h.version, "0.0.4", "version");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(h.version, "", "legacy version");
            }
        }

        // a real reference file, gzip-compressed with Boost: reads identically
        std::string ref = GetReferenceDir() + "/stg-gpt-dp2-tp2-pp2/gpt_dp2_tp2_pp2.1.et";
        std::string plain = ReadBytes(ref);
        std::string z;
        {
            namespace io = boost::iostreams;
            std::istringstream in(plain, std::ios::binary);
            io::filtering_istreambuf buf;
            buf.push(io::gzip_compressor());
            buf.push(in);
            std::ostringstream out(std::ios::binary);
            io::copy(buf, out);
            z = out.str();
        }
        WriteBytes(dir + "/gz.1.et", z);
        WorkloadGraph a = ReadChakraFile(ref, 1);
        WorkloadGraph b = ReadChakraFile(dir + "/gz.1.et", 1);
        NS_TEST_ASSERT_MSG_EQ(a.nodes.size(), b.nodes.size(), "gzip node count");
        bool same = true;
        for (size_t i = 0; i < a.nodes.size(); ++i)
        {
            same = same && a.nodes[i] == b.nodes[i];
        }
        NS_TEST_EXPECT_MSG_EQ(same, true, "gzip file reads identically");
        NS_TEST_EXPECT_MSG_LT(z.size(), plain.size(), "really compressed");

        // ReadChakraPrefix on a written set, and a set with a .et.gz member
        std::vector<WorkloadGraph> set{g, g};
        WriteChakraPrefix(set, dir + "/set");
        auto back = ReadChakraPrefix(dir + "/set", 2);
        NS_TEST_EXPECT_MSG_EQ(back.size(), 2, "prefix round trip");
        NS_TEST_EXPECT_MSG_EQ(back[1].rank, 1, "rank of second file");
        RemoveDir(dir);
    }
};

/// Error paths: each message names the file / node and the cause.
class EtErrorTestCase : public TestCase
{
  public:
    EtErrorTestCase()
        : TestCase("ET errors: truncated, garbled, dangling, cycle, duplicate, rank files")
    {
    }

  private:
    void DoRun() override
    {
        try
        {
            Body();
        }
        catch (const std::exception& e)
        {
            NS_TEST_ASSERT_MSG_EQ(true, false, "unexpected exception: " << e.what());
        }
    }

    void Body()
    {
        std::string good = Metadata() + NodeMsg(1, "a", 4, {}, {}) + NodeMsg(2, "b", 4, {1}, {});
        NS_TEST_ASSERT_MSG_EQ(ReadChakraBuffer(good, "good.et", 0).nodes.size(), 2, "good");

        // truncated: the last message loses its tail
        size_t lastOffset = Metadata().size() + NodeMsg(1, "a", 4, {}, {}).size();
        std::string e =
            ErrorOf([&]() { ReadChakraBuffer(good.substr(0, good.size() - 2), "trunc.et", 0); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "trunc.et") && Has(e, "truncated") &&
                                  Has(e, "byte offset " + std::to_string(lastOffset)),
                              true,
                              e);
        // truncated inside a length prefix
        e = ErrorOf([&]() { ReadChakraBuffer(good + "\x85", "trunc2.et", 0); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "trunc2.et") && Has(e, "truncated") &&
                                  Has(e, "offset " + std::to_string(good.size())),
                              true,
                              e);
        // garbled: a message of invalid wire types
        e = ErrorOf([&]() {
            ReadChakraBuffer(good + Delimit("\xff\xff\xff\x07\x0f\x0e"), "garbled.et", 0);
        });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "garbled.et") && Has(e, "garbled") &&
                                  Has(e, "byte offset " + std::to_string(good.size())),
                              true,
                              e);
        // an unknown node type
        e = ErrorOf(
            [&]() { ReadChakraBuffer(Metadata() + NodeMsg(4, "x", 42, {}, {}), "t.et", 0); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "node 4") && Has(e, "node type 42"), true, e);
        // an unknown comm_type on a collective
        Wire ct;
        ct.VarintField(9, 77);
        Wire ex;
        ex.Bytes(10, Attr("comm_type", ct));
        e = ErrorOf(
            [&]() { ReadChakraBuffer(Metadata() + NodeMsg(6, "c", 7, {}, {}, ex.b), "ct.et", 0); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "ct.et") && Has(e, "node 6") && Has(e, "comm_type 77"),
                              true,
                              e);
        // a non-integer comm_size
        Wire cs;
        cs.Bytes(29, "big");
        Wire ex2;
        ex2.Bytes(10, Attr("comm_size", cs));
        e = ErrorOf([&]() {
            ReadChakraBuffer(Metadata() + NodeMsg(8, "c", 7, {}, {}, ex2.b), "cs.et", 0);
        });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "node 8") && Has(e, "comm_size") && Has(e, "integer"),
                              true,
                              e);
        // dangling data dep
        std::string dangling =
            Metadata() + NodeMsg(1, "a", 4, {}, {}) + NodeMsg(2, "b", 4, {42}, {});
        e = ErrorOf([&]() { ReadChakraBuffer(dangling, "dangling.et", 0); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "dangling.et") && Has(e, "node 2") && Has(e, "42") &&
                                  Has(e, "dangling"),
                              true,
                              e);
        // dangling ctrl deps: error by default, dropped and counted on request
        std::string dctrl =
            Metadata() + NodeMsg(1, "a", 4, {}, {}) + NodeMsg(2, "b", 4, {}, {99, 1, 98});
        e = ErrorOf([&]() { ReadChakraBuffer(dctrl, "dctrl.et", 0); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "node 2") && Has(e, "ctrl") && Has(e, "99"), true, e);
        ChakraReadOptions drop;
        drop.dropDanglingCtrlDeps = true;
        WorkloadGraph dg = ReadChakraBuffer(dctrl, "dctrl.et", 0, drop);
        NS_TEST_EXPECT_MSG_EQ(dg.droppedDanglingDeps, 2, "dropped count");
        NS_TEST_EXPECT_MSG_EQ((dg.Find(2)->ctrlDeps == std::vector<uint64_t>{1}), true, "kept");
        // dropping ctrl deps does not hide dangling data deps
        e = ErrorOf([&]() { ReadChakraBuffer(dangling, "dangling.et", 0, drop); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "42"), true, e);
        // cycle 10 -> 11 -> 12 -> 10 (plus an independent node)
        std::string cyc = Metadata() + NodeMsg(1, "free", 4, {}, {}) +
                          NodeMsg(10, "a", 4, {12}, {}) + NodeMsg(11, "b", 4, {10}, {}) +
                          NodeMsg(12, "c", 4, {}, {11});
        e = ErrorOf([&]() { ReadChakraBuffer(cyc, "cycle.et", 0); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "cycle.et") && Has(e, "cycle") && Has(e, "10") &&
                                  Has(e, "11") && Has(e, "12") && !Has(e, " 1 "),
                              true,
                              e);
        // self dependency
        e = ErrorOf(
            [&]() { ReadChakraBuffer(Metadata() + NodeMsg(5, "s", 4, {5}, {}), "self.et", 0); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "cycle") && Has(e, "5 -> 5"), true, e);
        // duplicate ids
        e = ErrorOf([&]() {
            ReadChakraBuffer(Metadata() + NodeMsg(3, "a", 4, {}, {}) + NodeMsg(3, "b", 4, {}, {}),
                             "dup.et",
                             0);
        });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "dup.et") && Has(e, "duplicate node id 3"), true, e);
        // corrupt gzip
        e = ErrorOf(
            [&]() { ReadChakraBuffer(std::string("\x1f\x8b\x08\x00garbage", 12), "z.et", 0); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "z.et") && Has(e, "gzip"), true, e);

        // rank files: missing rank, extra ranks, missing file
        std::string dir = MakeTempDir();
        WriteBytes(dir + "/w.0.et", good);
        WriteBytes(dir + "/w.2.et", good);
        e = ErrorOf([&]() { ReadChakraPrefix(dir + "/w", 3); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "rank 1") && Has(e, dir + "/w.1.et") && Has(e, "found 2") &&
                                  Has(e, "expected 3"),
                              true,
                              e);
        WriteBytes(dir + "/w.1.et", good);
        WriteBytes(dir + "/w.3.et", good);
        e = ErrorOf([&]() { ReadChakraPrefix(dir + "/w", 2); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "found 4") && Has(e, "expected 2") &&
                                  Has(e, dir + "/w.2.et") && Has(e, dir + "/w.3.et"),
                              true,
                              e);
        NS_TEST_EXPECT_MSG_EQ(ReadChakraPrefix(dir + "/w", 4).size(), 4, "all four");
        NS_TEST_EXPECT_MSG_EQ(ReadChakraPrefix(dir + "/w", 0).size(), 4, "auto count");
        e = ErrorOf([&]() { ReadChakraPrefix(dir + "/nothing", 2); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, dir + "/nothing") && Has(e, "no workload files"), true, e);
        e = ErrorOf([&]() { ReadChakraPrefix(dir + "/w.0.et", 4); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, "without the .<rank>.et suffix"), true, e);
        e = ErrorOf([&]() { ReadChakraFile(dir + "/w.9.et", 9); });
        NS_TEST_EXPECT_MSG_EQ(Has(e, dir + "/w.9.et") && Has(e, "rank 9"), true, e);
        RemoveDir(dir);
    }
};

/// The module's own small inputs under traces/ (legacy and gzip layouts).
class TracesDirTestCase : public TestCase
{
  public:
    TracesDirTestCase()
        : TestCase("traces dir: legacy and gzip files")
    {
    }

  private:
    void DoRun() override
    {
        try
        {
            Body();
        }
        catch (const std::exception& e)
        {
            NS_TEST_ASSERT_MSG_EQ(true, false, "unexpected exception: " << e.what());
        }
    }

    void Body()
    {
        const std::string dir = GetSourceDir() + "/traces";
        auto legacy = ReadChakraPrefix(dir + "/legacy-2npu", 2);
        auto gz = ReadChakraPrefix(dir + "/gzip-2npu", 2);
        NS_TEST_ASSERT_MSG_EQ(legacy.size(), 2, "legacy ranks");
        NS_TEST_ASSERT_MSG_EQ(gz.size(), 2, "gzip ranks");
        for (uint32_t r = 0; r < 2; ++r)
        {
            NS_TEST_EXPECT_MSG_EQ(legacy[r].legacy, true, "legacy detected");
            NS_TEST_EXPECT_MSG_EQ(legacy[r].version, "", "no version");
            NS_TEST_EXPECT_MSG_EQ(gz[r].legacy, false, "gzip file has metadata");
            NS_TEST_ASSERT_MSG_EQ(legacy[r].nodes.size(), 2, "nodes");
            NS_TEST_ASSERT_MSG_EQ(gz[r].nodes.size(), 2, "nodes");
            const auto& l = legacy[r].nodes[1];
            const auto& z = gz[r].nodes[1];
            NS_TEST_EXPECT_MSG_EQ((l.ctrlDeps == std::vector<uint64_t>{0}), true, "ctrl deps");
            NS_TEST_EXPECT_MSG_EQ((z.dataDeps == std::vector<uint64_t>{0}), true, "data deps");
            NS_TEST_EXPECT_MSG_EQ(l.commSize, 65536, "size");
            NS_TEST_EXPECT_MSG_EQ(z.commSize, 65536, "size");
            NS_TEST_EXPECT_MSG_EQ(gz[r].nodes[0].numOps, 1000000, "num_ops");
            NS_TEST_EXPECT_MSG_EQ(legacy[r].nodes[0].durationMicros, 5, "duration");
        }
    }
};

/// Suite "astra-sim-workload-reader".
class WorkloadReaderTestSuite : public TestSuite
{
  public:
    WorkloadReaderTestSuite()
        : TestSuite("astra-sim-workload-reader", UNIT)
    {
        AddTestCase(new ReferenceEtTestCase, TestCase::QUICK);
        AddTestCase(new SyntheticEtTestCase, TestCase::QUICK);
        AddTestCase(new EtErrorTestCase, TestCase::QUICK);
        AddTestCase(new TracesDirTestCase, TestCase::QUICK);
    }
};

static WorkloadReaderTestSuite g_workloadReaderTestSuite; //!< registration
