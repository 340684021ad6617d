import java.nio.*; import java.nio.channels.*; import java.nio.file.*;
/**
 * The memory primitives behind the same-node transport routes, 256 MiB each, one thread: a copy
 * between warm buffers, a read, a fresh direct allocation then a copy into it, a write() into a new
 * tmpfs file, a fresh mapping of an existing tmpfs file then a read, a read through a mapping already
 * made, a fresh mapping of a new file then a copy into it, a copy into a mapping already made.
 * Run: java scripts/bench/MemoryPrimitives.java   (writes and deletes files in /dev/shm)
 */
public class MemoryPrimitives {
  static final int N = 256 << 20;
  static long sink;
  static void read(ByteBuffer b){ long s=0; for(int i=0;i<b.capacity();i+=8) s+=b.getLong(i); sink+=s; }
  static double t(long start){ return (System.nanoTime()-start)/1e6; }
  public static void main(String[] a) throws Exception {
    ByteBuffer src = ByteBuffer.allocateDirect(N).order(ByteOrder.nativeOrder()); for(int i=0;i<N;i+=4096) src.put(i,(byte)i);
    ByteBuffer dst = ByteBuffer.allocateDirect(N).order(ByteOrder.nativeOrder());
    Path dir = Paths.get("/dev/shm");
    for (int r=0;r<4;r++){
      long s=System.nanoTime(); dst.clear(); dst.put(src.duplicate().clear()); double copy=t(s);
      s=System.nanoTime(); read(dst); double rd=t(s);
      s=System.nanoTime(); ByteBuffer fresh=ByteBuffer.allocateDirect(N).order(ByteOrder.nativeOrder()); double alloc=t(s); fresh.put(src.duplicate().clear()); double freshCopy=t(s);
      Path f = dir.resolve("prim-"+r);
      s=System.nanoTime(); try(FileChannel ch=FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)){ ByteBuffer x=src.duplicate().clear(); while(x.hasRemaining()) ch.write(x);} double write=t(s);
      s=System.nanoTime(); MappedByteBuffer m; try(FileChannel ch=FileChannel.open(f, StandardOpenOption.READ)){ m=ch.map(FileChannel.MapMode.READ_ONLY,0,N);} m.order(ByteOrder.nativeOrder()); read(m); double mapRead=t(s);
      s=System.nanoTime(); read(m); double mapRead2=t(s);
      Path g = dir.resolve("prim-g"+r);
      s=System.nanoTime(); MappedByteBuffer w; try(FileChannel ch=FileChannel.open(g, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)){ w=ch.map(FileChannel.MapMode.READ_WRITE,0,N);} w.put(src.duplicate().clear()); double mapCopy=t(s);
      s=System.nanoTime(); w.clear(); w.put(src.duplicate().clear()); double mapCopy2=t(s);
      Files.delete(f); Files.delete(g);
      System.out.printf("copy %.1f read %.1f | fresh alloc %.1f alloc+copy %.1f | write() new file %.1f | map+read %.1f cachedmap read %.1f | newmap+copy %.1f warm map copy %.1f%n", copy, rd, alloc, freshCopy, write, mapRead, mapRead2, mapCopy, mapCopy2);
    }
  }
}
