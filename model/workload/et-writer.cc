/*
 * Chakra execution trace writer.
 */

#include "et-writer.h"

#include "chakra.pb.h"

#include "ns3/log.h"

#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <zlib.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AstraEtWriter");

namespace astra
{

namespace
{

using ChakraProtoMsg::AttributeProto;

void
AppendDelimited(std::string& out, const google::protobuf::MessageLite& m)
{
    std::string body;
    m.SerializeToString(&body);
    uint64_t len = body.size();
    do
    {
        uint8_t c = len & 0x7f;
        len >>= 7;
        if (len != 0)
        {
            c |= 0x80;
        }
        out.push_back(static_cast<char>(c));
    } while (len != 0);
    out += body;
}

uint64_t
VarintSize(uint64_t v)
{
    uint64_t n = 1;
    while (v >= 0x80)
    {
        v >>= 7;
        ++n;
    }
    return n;
}

inline char*
WireVarint(char* p, uint64_t v)
{
    while (v >= 0x80)
    {
        *p++ = static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<char>(v);
    return p;
}

inline char*
WireBytes(char* p, uint32_t field, const char* data, size_t len)
{
    p = WireVarint(p, (uint64_t(field) << 3) | 2);
    p = WireVarint(p, len);
    std::memcpy(p, data, len);
    return p + len;
}

void
CheckGzipLevel(int level)
{
    if (level < -1 || level > 9)
    {
        throw WorkloadError("gzip level " + std::to_string(level) +
                            " out of range (0 .. 9, or -1 for the default)");
    }
}

AttributeProto*
Add(ChakraProtoMsg::Node& n, const std::string& name)
{
    AttributeProto* a = n.add_attr();
    a->set_name(name);
    return a;
}

} // namespace

std::string
SerializeChakra(const WorkloadGraph& g, const ChakraWriteOptions& opts)
{
    std::string out;
    if (!opts.legacy)
    {
        out = SerializeChakraHeader(g.version.empty() ? opts.version : g.version, g.commGroups);
    }
    ChakraProtoMsg::Node pn;
    for (const auto& n : g.nodes)
    {
        pn.Clear();
        pn.set_id(n.id);
        pn.set_name(n.name);
        pn.set_type(static_cast<ChakraProtoMsg::NodeType>(n.kind));
        for (uint64_t d : n.ctrlDeps)
        {
            pn.add_ctrl_deps(d);
        }
        for (uint64_t d : n.dataDeps)
        {
            if (opts.legacy)
            {
                pn.add_ctrl_deps(d);
            }
            else
            {
                pn.add_data_deps(d);
            }
        }
        pn.set_duration_micros(n.durationMicros);
        const bool sendRecv = n.kind == NodeKind::COMM_SEND || n.kind == NodeKind::COMM_RECV;
        if (n.kind == NodeKind::COMM_COLL)
        {
            Add(pn, "comm_type")->set_int64_val(static_cast<int64_t>(n.collType));
        }
        if (n.kind == NodeKind::COMM_COLL || sendRecv || n.commSize != 0)
        {
            Add(pn, "comm_size")->set_int64_val(static_cast<int64_t>(n.commSize));
        }
        if (sendRecv || n.commSrc != -1)
        {
            Add(pn, "comm_src")->set_int32_val(n.commSrc);
        }
        if (sendRecv || n.commDst != -1)
        {
            Add(pn, "comm_dst")->set_int32_val(n.commDst);
        }
        if (sendRecv || n.commTag != 0)
        {
            Add(pn, "comm_tag")->set_int64_val(n.commTag);
        }
        if (n.commPriority != 0)
        {
            Add(pn, "comm_priority")->set_int32_val(n.commPriority);
        }
        if (!n.pgName.empty())
        {
            Add(pn, "pg_name")->set_string_val(n.pgName);
        }
        if (n.inSwitch)
        {
            Add(pn, "in_switch")->set_bool_val(true);
        }
        if (!n.involvedDim.empty())
        {
            auto* l = Add(pn, "involved_dim")->mutable_bool_list();
            for (bool b : n.involvedDim)
            {
                l->add_values(b);
            }
        }
        if (n.hasNumOps)
        {
            Add(pn, "num_ops")->set_uint64_val(n.numOps);
        }
        if (n.tensorSize != 0)
        {
            Add(pn, "tensor_size")->set_uint64_val(n.tensorSize);
        }
        if (n.kind == NodeKind::COMP || n.isCpuOp)
        {
            Add(pn, "is_cpu_op")->set_bool_val(n.isCpuOp);
        }
        if (!n.opType.empty())
        {
            Add(pn, "op_type")->set_string_val(n.opType);
        }
        if (n.durationNs != 0)
        {
            Add(pn, "duration_ns")->set_uint64_val(n.durationNs);
        }
        AppendDelimited(out, pn);
    }
    if (opts.gzip)
    {
        CheckGzipLevel(opts.gzipLevel);
        namespace io = boost::iostreams;
        std::istringstream in(out, std::ios::binary);
        io::filtering_istreambuf buf;
        buf.push(io::gzip_compressor(io::gzip_params(opts.gzipLevel)));
        buf.push(in);
        std::ostringstream z(std::ios::binary);
        io::copy(buf, z);
        return z.str();
    }
    return out;
}

std::string
SerializeChakraHeader(const std::string& version,
                      const std::map<std::string, std::vector<uint32_t>>& commGroups)
{
    std::string out;
    ChakraProtoMsg::GlobalMetadata md;
    md.set_version(version);
    AttributeProto* s = md.add_attr();
    s->set_name("schema");
    s->set_string_val("astra-sim-ns3");
    for (const auto& [name, ranks] : commGroups)
    {
        AttributeProto* a = md.add_attr();
        a->set_name("comm_group:" + name);
        for (uint32_t r : ranks)
        {
            a->mutable_int64_list()->add_values(r);
        }
    }
    AppendDelimited(out, md);
    return out;
}

void
AppendChakraNode(std::string& out, const WorkloadNode& n, bool legacy)
{
    // Field numbers and attribute order as in SerializeChakra; proto3 rules: scalars
    // equal to 0 / empty are omitted, a oneof member is always written, repeated
    // numerics are packed, negative int32/int64 are 10-byte varints. The body is
    // encoded with raw pointer writes into a buffer sized by an upper bound.
    const size_t deps = n.ctrlDeps.size() + n.dataDeps.size();
    const size_t bound = 512 + 16 + n.name.size() + n.pgName.size() + n.opType.size() +
                         n.involvedDim.size() + 10 * deps;
    char stackBuf[1024];
    std::string heapBuf;
    char* buf = stackBuf;
    if (bound > sizeof(stackBuf))
    {
        heapBuf.resize(bound);
        buf = &heapBuf[0];
    }
    char* p = buf;
    if (n.id != 0)
    {
        *p++ = 0x08; // field 1, varint
        p = WireVarint(p, n.id);
    }
    if (!n.name.empty())
    {
        p = WireBytes(p, 2, n.name.data(), n.name.size());
    }
    if (n.kind != NodeKind::INVALID)
    {
        *p++ = 0x18; // field 3, varint
        p = WireVarint(p, static_cast<uint64_t>(n.kind));
    }
    auto packed =
        [&p](uint32_t field, const std::vector<uint64_t>& a, const std::vector<uint64_t>* b) {
            uint64_t len = 0;
            for (uint64_t d : a)
            {
                len += VarintSize(d);
            }
            if (b)
            {
                for (uint64_t d : *b)
                {
                    len += VarintSize(d);
                }
            }
            p = WireVarint(p, (uint64_t(field) << 3) | 2);
            p = WireVarint(p, len);
            for (uint64_t d : a)
            {
                p = WireVarint(p, d);
            }
            if (b)
            {
                for (uint64_t d : *b)
                {
                    p = WireVarint(p, d);
                }
            }
        };
    if (!n.ctrlDeps.empty() || (legacy && !n.dataDeps.empty()))
    {
        packed(4, n.ctrlDeps, legacy ? &n.dataDeps : nullptr);
    }
    if (!legacy && !n.dataDeps.empty())
    {
        packed(5, n.dataDeps, nullptr);
    }
    if (n.durationMicros != 0)
    {
        *p++ = 0x38; // field 7, varint
        p = WireVarint(p, n.durationMicros);
    }
    // attributes (field 10): name (1) then the oneof value
    auto intAttr = [&p](std::string_view name, uint32_t field, uint64_t v) {
        const uint64_t key = uint64_t(field) << 3;
        const uint64_t inner = 2 + name.size() + VarintSize(key) + VarintSize(v);
        *p++ = 0x52; // field 10, length-delimited
        p = WireVarint(p, inner);
        p = WireBytes(p, 1, name.data(), name.size());
        p = WireVarint(p, key);
        p = WireVarint(p, v);
    };
    auto strAttr = [&p](std::string_view name, const std::string& v) {
        const uint64_t inner = 2 + name.size() + 2 + VarintSize(v.size()) + v.size();
        *p++ = 0x52;
        p = WireVarint(p, inner);
        p = WireBytes(p, 1, name.data(), name.size());
        p = WireBytes(p, 29, v.data(), v.size());
    };
    const bool sendRecv = n.kind == NodeKind::COMM_SEND || n.kind == NodeKind::COMM_RECV;
    if (n.kind == NodeKind::COMM_COLL)
    {
        intAttr("comm_type", 9, static_cast<uint64_t>(n.collType));
    }
    if (n.kind == NodeKind::COMM_COLL || sendRecv || n.commSize != 0)
    {
        intAttr("comm_size", 9, n.commSize);
    }
    if (sendRecv || n.commSrc != -1)
    {
        intAttr("comm_src", 7, static_cast<uint64_t>(int64_t(n.commSrc)));
    }
    if (sendRecv || n.commDst != -1)
    {
        intAttr("comm_dst", 7, static_cast<uint64_t>(int64_t(n.commDst)));
    }
    if (sendRecv || n.commTag != 0)
    {
        intAttr("comm_tag", 9, static_cast<uint64_t>(n.commTag));
    }
    if (n.commPriority != 0)
    {
        intAttr("comm_priority", 7, static_cast<uint64_t>(int64_t(n.commPriority)));
    }
    if (!n.pgName.empty())
    {
        strAttr("pg_name", n.pgName);
    }
    if (n.inSwitch)
    {
        intAttr("in_switch", 27, 1); // bool_val
    }
    if (!n.involvedDim.empty())
    {
        // BoolList (field 28): its field 1, packed, one byte per value
        const uint64_t cnt = n.involvedDim.size();
        const uint64_t list = 1 + VarintSize(cnt) + cnt;
        const uint64_t inner = 2 + 12 + 2 + VarintSize(list) + list;
        *p++ = 0x52;
        p = WireVarint(p, inner);
        p = WireBytes(p, 1, "involved_dim", 12);
        p = WireVarint(p, (28u << 3) | 2);
        p = WireVarint(p, list);
        *p++ = 0x0a;
        p = WireVarint(p, cnt);
        for (bool b : n.involvedDim)
        {
            *p++ = b ? 1 : 0;
        }
    }
    if (n.hasNumOps)
    {
        intAttr("num_ops", 13, n.numOps);
    }
    if (n.tensorSize != 0)
    {
        intAttr("tensor_size", 13, n.tensorSize);
    }
    if (n.kind == NodeKind::COMP || n.isCpuOp)
    {
        intAttr("is_cpu_op", 27, n.isCpuOp ? 1 : 0);
    }
    if (!n.opType.empty())
    {
        strAttr("op_type", n.opType);
    }
    if (n.durationNs != 0)
    {
        intAttr("duration_ns", 13, n.durationNs);
    }
    const size_t len = static_cast<size_t>(p - buf);
    char lenBuf[10];
    out.append(lenBuf, static_cast<size_t>(WireVarint(lenBuf, len) - lenBuf));
    out.append(buf, len);
}

std::string
GzipBytes(const std::string& bytes, int level)
{
    CheckGzipLevel(level);
    z_stream zs{};
    // windowBits 15 + 16: a gzip header and trailer instead of zlib's
    if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    {
        throw WorkloadError("gzip: deflateInit2 failed");
    }
    std::string out;
    out.resize(deflateBound(&zs, static_cast<uLong>(bytes.size())) + 32);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    zs.avail_in = static_cast<uInt>(bytes.size());
    zs.next_out = reinterpret_cast<Bytef*>(&out[0]);
    zs.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&zs, Z_FINISH);
    const uint64_t produced = zs.total_out;
    deflateEnd(&zs);
    if (rc != Z_STREAM_END)
    {
        throw WorkloadError("gzip: deflate failed (" + std::to_string(rc) + ")");
    }
    out.resize(produced);
    return out;
}

uint64_t
WriteChakraBytes(const std::string& bytes, const std::string& path, const ChakraWriteOptions& opts)
{
    const std::string z = opts.gzip ? GzipBytes(bytes, opts.gzipLevel) : std::string();
    const std::string& data = opts.gzip ? z : bytes;
    // one unbuffered fwrite: no copy through a stream buffer
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
    {
        throw WorkloadError(path + ": cannot open for writing: " + std::strerror(errno));
    }
    std::setvbuf(f, nullptr, _IONBF, 0);
    const size_t written = std::fwrite(data.data(), 1, data.size(), f);
    const bool ok = written == data.size() && std::fclose(f) == 0;
    if (!ok)
    {
        if (written != data.size())
        {
            std::fclose(f);
        }
        throw WorkloadError(path + ": write error");
    }
    return data.size();
}

void
WriteChakraFile(const WorkloadGraph& g, const std::string& path, const ChakraWriteOptions& opts)
{
    std::string bytes = SerializeChakra(g, opts);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f)
    {
        throw WorkloadError(path + ": cannot open for writing");
    }
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.close();
    if (!f)
    {
        throw WorkloadError(path + ": write error");
    }
    NS_LOG_INFO("wrote " << path << " (" << g.nodes.size() << " nodes, " << bytes.size()
                         << " bytes)");
}

void
WriteChakraPrefix(const std::vector<WorkloadGraph>& graphs,
                  const std::string& prefix,
                  const ChakraWriteOptions& opts)
{
    for (size_t r = 0; r < graphs.size(); ++r)
    {
        WriteChakraFile(graphs[r], prefix + "." + std::to_string(r) + ".et", opts);
    }
}

} // namespace astra
} // namespace ns3
