import streamlit as st

st.set_page_config(page_title="Self-attention, step by step", layout="wide")
st.title("Self-attention, step by step")
