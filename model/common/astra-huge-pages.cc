#include "astra-huge-pages.h"

#include <cstdio>
#include <cstring>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace ns3
{
namespace astra
{

HugePageResult
CollapseHeapToHugePages()
{
    HugePageResult r;
#ifdef __linux__
#ifndef MADV_COLLAPSE
    constexpr int kMadvCollapse = 25; // Linux 6.1 uapi value (older C library headers)
#else
    constexpr int kMadvCollapse = MADV_COLLAPSE;
#endif
    constexpr uintptr_t kHuge = uintptr_t(2) << 20;
    std::FILE* maps = std::fopen("/proc/self/maps", "r");
    if (!maps)
    {
        return r;
    }
    char line[512];
    while (std::fgets(line, sizeof(line), maps))
    {
        // the brk heap, and anonymous private writable mappings (malloc's large blocks
        // and its other arenas): "lo-hi rw-p offset dev inode" with no path
        unsigned long lo = 0;
        unsigned long hi = 0;
        char perms[8] = {0};
        unsigned long inode = 0;
        int pathAt = 0;
        if (std::sscanf(line, "%lx-%lx %7s %*s %*s %lu %n", &lo, &hi, perms, &inode, &pathAt) < 4 ||
            std::strcmp(perms, "rw-p") != 0 || inode != 0)
        {
            continue;
        }
        const char* path = line + pathAt;
        if (*path != '\n' && *path != '\0' && !std::strstr(path, "[heap]"))
        {
            continue; // [stack], [vvar] and the like
        }
        const uintptr_t start = (uintptr_t(lo) + kHuge - 1) & ~(kHuge - 1);
        const uintptr_t end = uintptr_t(hi) & ~(kHuge - 1);
        if (end <= start)
        {
            continue;
        }
        void* p = reinterpret_cast<void*>(start);
        const std::size_t len = end - start;
        if (madvise(p, len, MADV_HUGEPAGE) != 0)
        {
            continue;
        }
        r.requestedBytes += len;
        // one 2 MiB range at a time: a range the kernel cannot collapse (memory short)
        // does not stop the others
        for (uintptr_t a = start; a < end; a += kHuge)
        {
            if (madvise(reinterpret_cast<void*>(a), kHuge, kMadvCollapse) == 0)
            {
                r.collapsedBytes += kHuge;
            }
        }
    }
    std::fclose(maps);
#endif
    return r;
}

} // namespace astra
} // namespace ns3
