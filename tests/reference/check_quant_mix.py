#!/usr/bin/env python3
"""tfx's q4_k_m / q5_k_m files against llama-quantize's, byte for byte: model A of
gen_quant_mix_reference.py (width 256, 8 layers) written as F32 GGUF, quantized by both, every
tensor's type and data compared (gguf-py's GGUFReader). Prints one line per mix.

    PYTHONPATH=LLAMA_CPP/gguf-py:STUB python3 tests/reference/check_quant_mix.py LLAMA_QUANTIZE TFX
(measured: 75 of 75 tensors identical for both mixes, llama.cpp c392e5094)
"""
import sys, os, subprocess
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_quant_mix_reference as g
import tempfile
import gguf
tmp = tempfile.mkdtemp()
m=g.MODELS['A']
g.write_model(tmp + '/mixA.gguf', m)
for mix,t in [('Q4_K_M','q4_k_m'),('Q5_K_M','q5_k_m')]:
    subprocess.run([sys.argv[1],tmp + '/mixA.gguf',tmp + '/mixA-l.gguf',mix,'1'],check=True,capture_output=True)
    subprocess.run([sys.argv[2],'model','quantize',tmp + '/mixA.gguf','--type',t,'-o',tmp + '/mixA-t.gguf'],check=True,capture_output=True)
    L={x.name:x for x in gguf.GGUFReader(tmp + '/mixA-l.gguf').tensors}
    T={x.name:x for x in gguf.GGUFReader(tmp + '/mixA-t.gguf').tensors}
    same=sum(1 for n in L if L[n].tensor_type==T[n].tensor_type and bytes(L[n].data.tobytes())==bytes(T[n].data.tobytes()))
    diff=[n for n in L if not (L[n].tensor_type==T[n].tensor_type and bytes(L[n].data.tobytes())==bytes(T[n].data.tobytes()))]
    print(mix, same, 'of', len(L), 'identical; differ:', diff[:5], [ (L[n].tensor_type.name, T[n].tensor_type.name) for n in diff[:3]])
