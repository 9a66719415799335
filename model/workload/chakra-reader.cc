/*
 * Chakra execution trace reader.
 */

#include "chakra-reader.h"

#include "chakra.pb.h"

#include "ns3/astra-diagnostics.h"
#include "ns3/astra-input.h"
#include "ns3/log.h"

#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <cmath>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AstraChakraReader");

namespace astra
{

namespace
{

using ChakraProtoMsg::AttributeProto;

bool
FileExists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

[[noreturn]] void
Fail(const std::string& file, const std::string& what)
{
    throw WorkloadError(file + ": " + what);
}

[[noreturn]] void
FailNode(const std::string& file, uint64_t id, const std::string& what)
{
    throw WorkloadError(file + ": node " + std::to_string(id) + ": " + what);
}

std::string
Gunzip(const std::string& bytes, const std::string& name, uint64_t maxBytes)
{
    namespace io = boost::iostreams;
    std::string out;
    try
    {
        std::istringstream in(bytes, std::ios::binary);
        io::filtering_istreambuf buf;
        buf.push(io::gzip_decompressor());
        buf.push(in);
        char block[65536];
        for (;;)
        {
            const std::streamsize n = buf.sgetn(block, sizeof(block));
            if (n <= 0)
            {
                break;
            }
            if (out.size() + static_cast<uint64_t>(n) > maxBytes)
            {
                Fail(name,
                     "gzip stream decompresses to more than " + std::to_string(maxBytes) +
                         " bytes (the limit on a trace file; a gzip bomb?)");
            }
            out.append(block, static_cast<size_t>(n));
        }
    }
    catch (const WorkloadError&)
    {
        throw;
    }
    catch (const std::exception& e)
    {
        Fail(name, std::string("corrupt gzip data: ") + e.what());
    }
    return out;
}

/// Result of reading a varint32 at an offset.
enum class VarintStatus
{
    OK,
    TRUNCATED,
    OVERLONG
};

VarintStatus
ReadVarint32(const std::string& b, size_t& pos, uint64_t& value)
{
    value = 0;
    for (int shift = 0; shift < 64; shift += 7)
    {
        if (pos >= b.size())
        {
            return VarintStatus::TRUNCATED;
        }
        uint8_t c = static_cast<uint8_t>(b[pos++]);
        value |= static_cast<uint64_t>(c & 0x7f) << shift;
        if ((c & 0x80) == 0)
        {
            return value > std::numeric_limits<uint32_t>::max() ? VarintStatus::OVERLONG
                                                                : VarintStatus::OK;
        }
    }
    return VarintStatus::OVERLONG;
}

/// Raw top-level scan of a message: does it look like a Node (and not GlobalMetadata)?
/// GlobalMetadata only has fields 1 and 2, both length-delimited.
bool
LooksLikeNode(const std::string& msg)
{
    size_t pos = 0;
    while (pos < msg.size())
    {
        uint64_t key = 0;
        int shift = 0;
        while (true)
        {
            if (pos >= msg.size() || shift > 63)
            {
                return false;
            }
            uint8_t c = static_cast<uint8_t>(msg[pos++]);
            key |= static_cast<uint64_t>(c & 0x7f) << shift;
            shift += 7;
            if ((c & 0x80) == 0)
            {
                break;
            }
        }
        uint32_t field = key >> 3;
        uint32_t wt = key & 7;
        if (field >= 3 && field <= 10)
        {
            return true;
        }
        if (field == 1 && wt == 0)
        {
            return true; // Node.id (GlobalMetadata.version is a string)
        }
        // skip the value
        if (wt == 0)
        {
            while (pos < msg.size() && (static_cast<uint8_t>(msg[pos]) & 0x80))
            {
                ++pos;
            }
            ++pos;
        }
        else if (wt == 1)
        {
            pos += 8;
        }
        else if (wt == 5)
        {
            pos += 4;
        }
        else if (wt == 2)
        {
            uint64_t len = 0;
            if (ReadVarint32(msg, pos, len) != VarintStatus::OK)
            {
                return false;
            }
            pos += len;
        }
        else
        {
            return false;
        }
    }
    return false;
}

/// Integer value of an attribute of any integer-like kind.
enum class IntStatus
{
    ABSENT,
    OK,
    NOT_INTEGER
};

IntStatus
AttrInteger(const AttributeProto& a, __int128& v)
{
    switch (a.value_case())
    {
    case AttributeProto::VALUE_NOT_SET:
        return IntStatus::ABSENT;
    case AttributeProto::kInt32Val:
        v = a.int32_val();
        return IntStatus::OK;
    case AttributeProto::kInt64Val:
        v = a.int64_val();
        return IntStatus::OK;
    case AttributeProto::kUint32Val:
        v = a.uint32_val();
        return IntStatus::OK;
    case AttributeProto::kUint64Val:
        v = a.uint64_val();
        return IntStatus::OK;
    case AttributeProto::kSint32Val:
        v = a.sint32_val();
        return IntStatus::OK;
    case AttributeProto::kSint64Val:
        v = a.sint64_val();
        return IntStatus::OK;
    case AttributeProto::kFixed32Val:
        v = a.fixed32_val();
        return IntStatus::OK;
    case AttributeProto::kFixed64Val:
        v = a.fixed64_val();
        return IntStatus::OK;
    case AttributeProto::kSfixed32Val:
        v = a.sfixed32_val();
        return IntStatus::OK;
    case AttributeProto::kSfixed64Val:
        v = a.sfixed64_val();
        return IntStatus::OK;
    case AttributeProto::kBoolVal:
        v = a.bool_val() ? 1 : 0;
        return IntStatus::OK;
    case AttributeProto::kDoubleVal:
    case AttributeProto::kFloatVal: {
        double d = a.value_case() == AttributeProto::kDoubleVal ? a.double_val() : a.float_val();
        if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 1.8e19)
        {
            return IntStatus::NOT_INTEGER;
        }
        v = static_cast<__int128>(d);
        return IntStatus::OK;
    }
    case AttributeProto::kStringVal: {
        const std::string& s = a.string_val();
        if (s.empty())
        {
            return IntStatus::ABSENT;
        }
        size_t i = 0;
        bool neg = false;
        if (s[0] == '-' || s[0] == '+')
        {
            neg = s[0] == '-';
            i = 1;
        }
        if (i >= s.size() || s.size() - i > 20)
        {
            return IntStatus::NOT_INTEGER;
        }
        __int128 r = 0;
        for (; i < s.size(); ++i)
        {
            if (s[i] < '0' || s[i] > '9')
            {
                return IntStatus::NOT_INTEGER;
            }
            r = r * 10 + (s[i] - '0');
        }
        v = neg ? -r : r;
        return IntStatus::OK;
    }
    default:
        return IntStatus::NOT_INTEGER;
    }
}

/// Integer list of an attribute of any integer-like list kind (a scalar gives one element).
IntStatus
AttrIntegerList(const AttributeProto& a, std::vector<__int128>& out)
{
    out.clear();
    switch (a.value_case())
    {
    case AttributeProto::VALUE_NOT_SET:
        return IntStatus::ABSENT;
#define ASTRA_LIST_CASE(kase, getter)                                                              \
    case AttributeProto::kase:                                                                     \
        for (auto x : a.getter().values())                                                         \
        {                                                                                          \
            out.push_back(static_cast<__int128>(x));                                               \
        }                                                                                          \
        return IntStatus::OK;
        ASTRA_LIST_CASE(kInt32List, int32_list)
        ASTRA_LIST_CASE(kInt64List, int64_list)
        ASTRA_LIST_CASE(kUint32List, uint32_list)
        ASTRA_LIST_CASE(kUint64List, uint64_list)
        ASTRA_LIST_CASE(kSint32List, sint32_list)
        ASTRA_LIST_CASE(kSint64List, sint64_list)
        ASTRA_LIST_CASE(kFixed32List, fixed32_list)
        ASTRA_LIST_CASE(kFixed64List, fixed64_list)
        ASTRA_LIST_CASE(kSfixed32List, sfixed32_list)
        ASTRA_LIST_CASE(kSfixed64List, sfixed64_list)
        ASTRA_LIST_CASE(kBoolList, bool_list)
#undef ASTRA_LIST_CASE
    case AttributeProto::kDoubleList:
    case AttributeProto::kFloatList: {
        std::vector<double> ds;
        if (a.value_case() == AttributeProto::kDoubleList)
        {
            ds.assign(a.double_list().values().begin(), a.double_list().values().end());
        }
        else
        {
            ds.assign(a.float_list().values().begin(), a.float_list().values().end());
        }
        for (double d : ds)
        {
            if (!std::isfinite(d) || d != std::floor(d))
            {
                return IntStatus::NOT_INTEGER;
            }
            out.push_back(static_cast<__int128>(d));
        }
        return IntStatus::OK;
    }
    default: {
        __int128 v;
        IntStatus st = AttrInteger(a, v);
        if (st == IntStatus::OK)
        {
            out.push_back(v);
        }
        return st;
    }
    }
}

const char*
ValueKindName(const AttributeProto& a)
{
    switch (a.value_case())
    {
    case AttributeProto::kStringVal:
        return "string";
    case AttributeProto::kStringList:
        return "string list";
    case AttributeProto::kBytesVal:
        return "bytes";
    case AttributeProto::kBytesList:
        return "bytes list";
    case AttributeProto::kDoubleVal:
        return "double";
    case AttributeProto::kFloatVal:
        return "float";
    default:
        return "list";
    }
}

/// Reads attributes of one node (or of GlobalMetadata) with file/node context for errors.
class AttrReader
{
  public:
    AttrReader(const std::string& file, uint64_t id)
        : m_file(file),
          m_id(id)
    {
    }

    __int128 Int(const AttributeProto& a, __int128 lo, __int128 hi) const
    {
        __int128 v = 0;
        IntStatus st = AttrInteger(a, v);
        if (st == IntStatus::NOT_INTEGER)
        {
            FailNode(m_file,
                     m_id,
                     "attribute '" + a.name() + "' must be an integer, found a " +
                         ValueKindName(a));
        }
        if (v < lo || v > hi)
        {
            FailNode(m_file,
                     m_id,
                     "attribute '" + a.name() + "' value " + ToString(v) + " out of range");
        }
        return v;
    }

    std::string String(const AttributeProto& a) const
    {
        switch (a.value_case())
        {
        case AttributeProto::kStringVal:
            return a.string_val();
        case AttributeProto::kBytesVal:
            return a.bytes_val();
        default: {
            __int128 v = 0;
            if (AttrInteger(a, v) != IntStatus::OK)
            {
                FailNode(m_file,
                         m_id,
                         "attribute '" + a.name() + "' must be a string or an integer, found a " +
                             ValueKindName(a));
            }
            return ToString(v);
        }
        }
    }

    std::vector<__int128> IntList(const AttributeProto& a) const
    {
        std::vector<__int128> out;
        if (AttrIntegerList(a, out) == IntStatus::NOT_INTEGER)
        {
            FailNode(m_file,
                     m_id,
                     "attribute '" + a.name() + "' must be an integer or bool list, found a " +
                         ValueKindName(a));
        }
        return out;
    }

    static std::string ToString(__int128 v)
    {
        if (v == 0)
        {
            return "0";
        }
        bool neg = v < 0;
        unsigned __int128 u = neg ? static_cast<unsigned __int128>(-v) : v;
        std::string s;
        while (u > 0)
        {
            s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
            u /= 10;
        }
        return neg ? "-" + s : s;
    }

  private:
    const std::string& m_file;
    uint64_t m_id;
};

constexpr __int128 kU64Max = std::numeric_limits<uint64_t>::max();
constexpr __int128 kI64Max = std::numeric_limits<int64_t>::max();
constexpr __int128 kI64Min = std::numeric_limits<int64_t>::min();
constexpr __int128 kI32Max = std::numeric_limits<int32_t>::max();
constexpr __int128 kI32Min = std::numeric_limits<int32_t>::min();

/// Add groups declared in a JSON string (object name->ranks, or list of {pg_name, ranks}).
void
AddGroupsFromJson(WorkloadGraph& g, uint64_t id, const std::string& attr, const std::string& text)
{
    nlohmann::json j;
    try
    {
        j = nlohmann::json::parse(text);
    }
    catch (const std::exception& e)
    {
        FailNode(g.file, id, "attribute '" + attr + "' is not valid JSON: " + e.what());
    }
    auto ranksOf = [&](const nlohmann::json& r, const std::string& name) {
        std::vector<uint32_t> ranks;
        if (!r.is_array())
        {
            FailNode(g.file, id, "group '" + name + "' in '" + attr + "': ranks must be a list");
        }
        for (const auto& x : r)
        {
            if (!x.is_number_integer() || x.get<int64_t>() < 0 ||
                x.get<int64_t>() > std::numeric_limits<uint32_t>::max())
            {
                FailNode(g.file,
                         id,
                         "group '" + name + "' in '" + attr + "': bad rank " + x.dump());
            }
            ranks.push_back(x.get<uint32_t>());
        }
        return ranks;
    };
    if (j.is_object())
    {
        for (auto it = j.begin(); it != j.end(); ++it)
        {
            g.commGroups[it.key()] = ranksOf(it.value(), it.key());
        }
    }
    else if (j.is_array())
    {
        for (const auto& e : j)
        {
            if (!e.is_object() || !e.contains("ranks") ||
                !(e.contains("pg_name") || e.contains("pg_id")))
            {
                FailNode(g.file,
                         id,
                         "attribute '" + attr + "': entries need 'pg_name' and 'ranks'");
            }
            const auto& n = e.contains("pg_name") ? e["pg_name"] : e["pg_id"];
            std::string name = n.is_string() ? n.get<std::string>() : n.dump();
            g.commGroups[name] = ranksOf(e["ranks"], name);
        }
    }
    else
    {
        FailNode(g.file, id, "attribute '" + attr + "' must hold a JSON object or list");
    }
}

std::vector<uint32_t>
ToRanks(const AttrReader& r, const AttributeProto& a)
{
    std::vector<uint32_t> ranks;
    for (__int128 v : r.IntList(a))
    {
        if (v < 0 || v > std::numeric_limits<uint32_t>::max())
        {
            throw WorkloadError("bad rank " + AttrReader::ToString(v) + " in attribute '" +
                                a.name() + "'");
        }
        ranks.push_back(static_cast<uint32_t>(v));
    }
    return ranks;
}

/// Communicator-group attributes of GlobalMetadata or of a METADATA node.
void
ReadGroupAttrs(WorkloadGraph& g,
               uint64_t id,
               const google::protobuf::RepeatedPtrField<AttributeProto>& attrs)
{
    AttrReader r(g.file, id);
    std::string pgName;
    bool hasPgName = false;
    const AttributeProto* ranks = nullptr;
    for (const auto& a : attrs)
    {
        const std::string& n = a.name();
        if (a.value_case() == AttributeProto::VALUE_NOT_SET)
        {
            continue;
        }
        if (n.rfind("comm_group:", 0) == 0 || n.rfind("pg:", 0) == 0)
        {
            g.commGroups[n.substr(n.find(':') + 1)] = ToRanks(r, a);
        }
        else if (n == "pg_ranks" || n == "ranks")
        {
            ranks = &a;
        }
        else if (n == "pg_name" || n == "pg_id")
        {
            pgName = r.String(a);
            hasPgName = true;
        }
        else if (n == "comm_groups" || n == "pg_config" || n == "process_groups")
        {
            AddGroupsFromJson(g, id, n, r.String(a));
        }
    }
    if (ranks != nullptr)
    {
        if (!hasPgName)
        {
            FailNode(g.file, id, "attribute '" + ranks->name() + "' without 'pg_name'");
        }
        g.commGroups[pgName] = ToRanks(r, *ranks);
    }
}

NodeKind
ToKind(int t, const std::string& file, uint64_t id)
{
    if (t < 0 || t > 7)
    {
        FailNode(file, id, "unknown node type " + std::to_string(t));
    }
    return static_cast<NodeKind>(t);
}

void
ConvertNode(const ChakraProtoMsg::Node& pn, WorkloadGraph& g, const ChakraReadOptions& opts)
{
    WorkloadNode n;
    n.id = pn.id();
    n.name = pn.name();
    n.kind = ToKind(pn.type(), g.file, n.id);
    n.ctrlDeps.assign(pn.ctrl_deps().begin(), pn.ctrl_deps().end());
    n.dataDeps.assign(pn.data_deps().begin(), pn.data_deps().end());
    n.durationMicros = pn.duration_micros();
    AttrReader r(g.file, n.id);
    for (const auto& a : pn.attr())
    {
        if (a.value_case() == AttributeProto::VALUE_NOT_SET)
        {
            continue; // attribute with no value = absent
        }
        const std::string& name = a.name();
        if (name == "comm_type")
        {
            // meaningful on collectives only (some generators put other values on SEND/RECV)
            __int128 v = r.Int(a, kI64Min, kI64Max);
            if (n.kind == NodeKind::COMM_COLL)
            {
                if (v < 0 || v > 9)
                {
                    FailNode(g.file, n.id, "unknown comm_type " + AttrReader::ToString(v));
                }
                n.collType = static_cast<CollType>(static_cast<int>(v));
            }
        }
        else if (name == "comm_size")
        {
            n.commSize = static_cast<uint64_t>(r.Int(a, 0, kU64Max));
        }
        else if (name == "comm_src")
        {
            n.commSrc = static_cast<int32_t>(r.Int(a, kI32Min, kI32Max));
        }
        else if (name == "comm_dst")
        {
            n.commDst = static_cast<int32_t>(r.Int(a, kI32Min, kI32Max));
        }
        else if (name == "comm_tag")
        {
            n.commTag = static_cast<int64_t>(r.Int(a, kI64Min, kI64Max));
        }
        else if (name == "comm_priority")
        {
            n.commPriority = static_cast<int32_t>(r.Int(a, kI32Min, kI32Max));
        }
        else if (name == "num_ops")
        {
            n.numOps = static_cast<uint64_t>(r.Int(a, 0, kU64Max));
            n.hasNumOps = true;
        }
        else if (name == "tensor_size")
        {
            n.tensorSize = static_cast<uint64_t>(r.Int(a, 0, kU64Max));
        }
        else if (name == "is_cpu_op")
        {
            n.isCpuOp = r.Int(a, kI64Min, kU64Max) != 0;
        }
        else if (name == "op_type")
        {
            n.opType = r.String(a);
        }
        else if (name == "pg_name")
        {
            n.pgName = r.String(a);
        }
        else if (name == "involved_dim")
        {
            for (__int128 v : r.IntList(a))
            {
                n.involvedDim.push_back(v != 0);
            }
        }
        else if (name == "in_switch")
        {
            n.inSwitch = r.Int(a, kI64Min, kU64Max) != 0;
        }
        else if (name == "duration_ns")
        {
            n.durationNs = static_cast<uint64_t>(r.Int(a, 0, kU64Max));
        }
    }
    if (opts.durationMicrosAsCycles && n.durationNs == 0)
    {
        n.durationNs = n.durationMicros;
    }
    if (n.kind == NodeKind::METADATA)
    {
        ReadGroupAttrs(g, n.id, pn.attr());
    }
    g.nodes.push_back(std::move(n));
}

} // namespace

WorkloadGraph
ReadChakraBuffer(const std::string& rawBytes,
                 const std::string& name,
                 uint32_t rank,
                 const ChakraReadOptions& opts)
{
    WorkloadGraph g;
    g.file = name;
    g.rank = rank;
    const bool gz = rawBytes.size() >= 2 && static_cast<uint8_t>(rawBytes[0]) == 0x1f &&
                    static_cast<uint8_t>(rawBytes[1]) == 0x8b;
    const std::string unzipped = gz ? Gunzip(rawBytes, name, opts.maxFileBytes) : std::string();
    const std::string& b = gz ? unzipped : rawBytes;
    const std::string where = gz ? " (of the decompressed stream)" : "";

    // count the messages first so that the node vector is allocated once
    {
        size_t p = 0;
        size_t count = 0;
        uint64_t len = 0;
        while (p < b.size() && ReadVarint32(b, p, len) == VarintStatus::OK && len != 0 &&
               len <= b.size() - p)
        {
            p += len;
            ++count;
        }
        g.nodes.reserve(count);
    }
    size_t pos = 0;
    bool first = true;
    ChakraProtoMsg::Node pn;
    while (pos < b.size())
    {
        const size_t msgOffset = pos;
        uint64_t len = 0;
        VarintStatus st = ReadVarint32(b, pos, len);
        if (st == VarintStatus::TRUNCATED)
        {
            Fail(name,
                 "truncated stream: length prefix at byte offset " + std::to_string(msgOffset) +
                     where + " is cut off at end of file");
        }
        if (st == VarintStatus::OVERLONG)
        {
            Fail(name,
                 "garbled stream: invalid message length prefix at byte offset " +
                     std::to_string(msgOffset) + where);
        }
        if (len == 0)
        {
            NS_LOG_DEBUG(name << ": zero-length message at offset " << msgOffset
                              << ", end of stream");
            break;
        }
        if (len > b.size() - pos)
        {
            Fail(name,
                 "truncated stream: message at byte offset " + std::to_string(msgOffset) + where +
                     " declares " + std::to_string(len) + " bytes but only " +
                     std::to_string(b.size() - pos) + " remain");
        }
        const char* data = b.data() + pos;
        pos += len;
        if (first)
        {
            first = false;
            std::string msg(data, len);
            if (!LooksLikeNode(msg))
            {
                ChakraProtoMsg::GlobalMetadata md;
                if (md.ParseFromArray(data, static_cast<int>(len)))
                {
                    g.version = md.version();
                    ReadGroupAttrs(g, 0, md.attr());
                    continue;
                }
                // not a GlobalMetadata: try it as a Node below
            }
            g.legacy = true;
            NS_LOG_INFO(name << ": no GlobalMetadata header, reading as a legacy ET file");
        }
        if (!pn.ParseFromArray(data, static_cast<int>(len)))
        {
            Fail(name,
                 "garbled stream: message at byte offset " + std::to_string(msgOffset) + where +
                     " (" + std::to_string(len) + " bytes, after node #" +
                     std::to_string(g.nodes.size()) + ") is not a valid Chakra Node");
        }
        ConvertNode(pn, g, opts);
    }
    if (g.nodes.empty())
    {
        ASTRA_WARN("rank-without-nodes", name << ": no nodes (rank " << rank << " has no work)");
    }
    if (opts.validate)
    {
        g.Validate(opts.dropDanglingCtrlDeps, opts.dropDanglingDataDeps);
    }
    else
    {
        g.BuildIndex();
    }
    NS_LOG_INFO(name << ": " << g.nodes.size() << " nodes, version '" << g.version << "'"
                     << (g.legacy ? " (legacy)" : ""));
    return g;
}

WorkloadGraph
ReadChakraFile(const std::string& path, uint32_t rank, const ChakraReadOptions& opts)
{
    std::string bytes;
    try
    {
        bytes = ReadInputFile(path,
                              "workload file for rank " + std::to_string(rank),
                              opts.maxFileBytes);
    }
    catch (const ConfigError& e)
    {
        throw WorkloadError(e.what());
    }
    return ReadChakraBuffer(bytes, path, rank, opts);
}

std::string
ChakraRankFile(const std::string& prefix, uint32_t rank)
{
    std::string p = prefix + "." + std::to_string(rank) + ".et";
    if (!FileExists(p) && FileExists(p + ".gz"))
    {
        return p + ".gz";
    }
    return p;
}

std::vector<uint32_t>
FindChakraRankFiles(const std::string& prefix)
{
    std::string dir = ".";
    std::string base = prefix;
    size_t slash = prefix.find_last_of('/');
    if (slash != std::string::npos)
    {
        dir = slash == 0 ? "/" : prefix.substr(0, slash);
        base = prefix.substr(slash + 1);
    }
    std::set<uint32_t> ranks;
    DIR* d = opendir(dir.c_str());
    if (d == nullptr)
    {
        return {};
    }
    while (dirent* e = readdir(d))
    {
        std::string f = e->d_name;
        if (f.size() <= base.size() + 1 || f.compare(0, base.size(), base) != 0 ||
            f[base.size()] != '.')
        {
            continue;
        }
        std::string rest = f.substr(base.size() + 1);
        size_t i = 0;
        while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i])))
        {
            ++i;
        }
        if (i == 0 || i > 9)
        {
            continue;
        }
        std::string tail = rest.substr(i);
        if (tail == ".et" || tail == ".et.gz")
        {
            ranks.insert(static_cast<uint32_t>(std::stoul(rest.substr(0, i))));
        }
    }
    closedir(d);
    return std::vector<uint32_t>(ranks.begin(), ranks.end());
}

std::vector<WorkloadGraph>
ReadChakraPrefix(const std::string& prefix, uint32_t expectedRanks, const ChakraReadOptions& opts)
{
    std::vector<uint32_t> found = FindChakraRankFiles(prefix);
    if (found.empty())
    {
        std::string hint;
        if (FileExists(prefix) && prefix.find(".et") != std::string::npos)
        {
            hint = "; '" + prefix +
                   "' is a single file: pass the prefix without the .<rank>.et suffix";
        }
        throw WorkloadError(
            prefix + ": no workload files " + prefix + ".<rank>.et found" +
            (expectedRanks ? " (expected " + std::to_string(expectedRanks) + " ranks)" : "") +
            hint);
    }
    uint32_t n = expectedRanks != 0 ? expectedRanks : found.back() + 1;
    std::ostringstream missing;
    std::ostringstream extra;
    uint32_t nMissing = 0;
    uint32_t nExtra = 0;
    std::set<uint32_t> fs(found.begin(), found.end());
    for (uint32_t r = 0; r < n; ++r)
    {
        if (fs.count(r) == 0)
        {
            if (nMissing++ < 8)
            {
                missing << (nMissing > 1 ? ", " : "") << r << " (" << prefix << "." << r << ".et)";
            }
        }
    }
    for (uint32_t r : found)
    {
        if (r >= n)
        {
            if (nExtra++ < 8)
            {
                extra << (nExtra > 1 ? ", " : "") << prefix << "." << r << ".et";
            }
        }
    }
    if (nMissing != 0 || nExtra != 0)
    {
        std::ostringstream os;
        os << prefix << ": wrong workload files for " << n << " NPUs: found " << found.size()
           << " rank files, expected " << n;
        if (nMissing)
        {
            os << "; missing file for rank " << missing.str() << (nMissing > 8 ? ", ..." : "");
        }
        if (nExtra)
        {
            os << "; extra rank files beyond the topology: " << extra.str()
               << (nExtra > 8 ? ", ..." : "");
        }
        throw WorkloadError(os.str());
    }
    std::vector<WorkloadGraph> graphs;
    graphs.reserve(n);
    uint32_t empty = 0;
    uint64_t dropped = 0;
    uint32_t droppedFiles = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        graphs.push_back(ReadChakraFile(ChakraRankFile(prefix, r), r, opts));
        empty += graphs.back().nodes.empty() ? 1 : 0;
        dropped += graphs.back().droppedDanglingDeps;
        droppedFiles += graphs.back().droppedDanglingDeps > 0 ? 1 : 0;
    }
    if (dropped > 0)
    {
        // the total, visible once however many files had them
        ASTRA_WARN("dangling-dependencies-dropped-total",
                   prefix << ": dropped " << dropped << " dangling dependencies in all, in "
                          << droppedFiles << " of " << n << " trace files");
    }
    if (empty == n)
    {
        throw WorkloadError(prefix + ": the trace of every rank has no nodes (" +
                            ChakraRankFile(prefix, 0) +
                            (n > 1 ? " ... " + ChakraRankFile(prefix, n - 1) : "") +
                            "): nothing to simulate (empty or truncated files?)");
    }
    return graphs;
}

} // namespace astra
} // namespace ns3
